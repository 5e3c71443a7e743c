package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/store"
)

// internalPrefixes are the networks beyond loopback, private and
// link-local that no outside service lives on: carrier-grade NAT, this
// network, protocol assignments, benchmarking, reserved space, and IPv6's
// unique-local and NAT64 ranges (which can carry an IPv4 address inside).
var internalPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// Internal reports whether ip is an address of the machine or of a
// network it sits on rather than of the internet: loopback, private,
// link-local, multicast, unspecified or otherwise reserved.
func Internal(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsValid() {
		return true
	}
	for _, p := range internalPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// privateRefusal is the sentence that refuses a target on an internal address.
var privateRefusal = i18n.Key("The url leads to a loopback, private or link-local address (%s), which Recur does not call unless the server's owner sets [notify] allow_private_targets = true.")

// checkTarget checks that raw is an absolute http(s) URL whose host
// resolves, and, unless allowPrivate, only to addresses outside the
// machine's own networks. It returns EINVALID naming url.
func checkTarget(ctx context.Context, raw string, allowPrivate bool) error {
	if len(raw) > webhookURLMaxLength {
		return store.Invalid("url", "The url may not be longer than %d characters.", webhookURLMaxLength)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return store.Invalid("url", "The url must be an absolute http or https URL, such as https://example.com/hook.")
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if Internal(ip) {
			return store.Invalid("url", privateRefusal, ip)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return store.Invalid("url", "The url's host %s could not be found.", host)
	}
	for _, ip := range ips {
		if Internal(ip) {
			return store.Invalid("url", privateRefusal, ip)
		}
	}
	return nil
}

// errInternalTarget is why a connection to an internal address was refused.
var errInternalTarget = errors.New("the address is loopback, private or link-local, which allow_private_targets does not allow")

// newClient returns the client deliveries go out with: no proxy from the
// environment, a bounded time, at most three redirects, and, unless
// allowPrivate, a dialer that refuses every internal address it is about
// to connect to, whatever name or redirect led there (so a name that
// resolves differently at delivery time is caught too).
func newClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || Internal(ap.Addr()) {
				return fmt.Errorf("connect to %s: %w", address, errInternalTarget)
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   2,
			IdleConnTimeout:       time.Minute,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("stopped after 3 redirects")
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirected to a %s URL", req.URL.Scheme)
			}
			return nil
		},
	}
}

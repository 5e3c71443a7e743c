package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// ParseTrustedProxies reads the trusted_proxies setting: each entry is a
// CIDR such as 10.0.0.0/8 or a single address such as 127.0.0.1 or ::1. The
// error names the first entry that is neither.
func ParseTrustedProxies(entries []string) ([]netip.Prefix, error) {
	prefixes := make([]netip.Prefix, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if p, err := netip.ParsePrefix(e); err == nil {
			prefixes = append(prefixes, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q is not an IP address or a CIDR, like 127.0.0.1 or 10.0.0.0/8", e)
		}
		a = a.Unmap()
		prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
	}
	return prefixes, nil
}

// proxies is the set of trusted reverse proxies.
type proxies []netip.Prefix

func (ps proxies) trusts(a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the address a request comes from. It is the socket's peer,
// unless that peer is a trusted proxy: then it is the rightmost address of
// X-Forwarded-For that is not itself a trusted proxy (every address to its
// left could have been written by the client), or X-Real-IP when there is
// no X-Forwarded-For. Anything the headers say that is not an address is
// ignored, and the proxy's own address is used.
func (ps proxies) clientIP(r *http.Request) string {
	peer := parseIP(r.RemoteAddr)
	if !peer.IsValid() {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return r.RemoteAddr
		}
		return host
	}
	if !ps.trusts(peer) {
		return peer.String()
	}
	if values := r.Header.Values("X-Forwarded-For"); len(values) > 0 {
		hops := strings.Split(strings.Join(values, ","), ",")
		client := peer
		for i := len(hops) - 1; i >= 0; i-- {
			hop := parseIP(hops[i])
			if !hop.IsValid() {
				break
			}
			client = hop
			if !ps.trusts(hop) {
				break
			}
		}
		return client.String()
	}
	if real := parseIP(r.Header.Get("X-Real-IP")); real.IsValid() {
		return real.String()
	}
	return peer.String()
}

// parseIP reads an address as proxies write it: 192.0.2.1, 2001:db8::1,
// with or without a port ([2001:db8::1]:443); IPv4 mapped into IPv6 is
// read as IPv4. It returns the zero Addr when s is none of these.
func parseIP(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone("")
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

// site is scheme://host of the request as its client addressed it, for the
// links in API answers: the Host header over plain http (https when the
// connection is TLS), unless the socket's peer is a trusted proxy: then
// X-Forwarded-Proto and X-Forwarded-Host, where the proxy sets them (the
// first value of each: the one the client's side of the proxy wrote). A
// value that is not an http(s) scheme or a host is ignored. Mailed links
// never come from here: see Options.BaseURL.
func (ps proxies) site(r *http.Request) string {
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if peer := parseIP(r.RemoteAddr); peer.IsValid() && ps.trusts(peer) {
		if p := strings.ToLower(firstValue(r.Header.Get("X-Forwarded-Proto"))); p == "http" || p == "https" {
			scheme = p
		}
		if h := firstValue(r.Header.Get("X-Forwarded-Host")); validHost(h) {
			host = h
		}
	}
	return scheme + "://" + host
}

// firstValue is the first of a header's comma-separated values, trimmed.
func firstValue(v string) string {
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first)
}

// validHost reports whether h is a host, with or without a port, and
// nothing else: no path, user or query that would change what a link
// points at.
func validHost(h string) bool {
	if h == "" || strings.ContainsAny(h, "/\\@?#% ") {
		return false
	}
	u, err := url.Parse("http://" + h)
	return err == nil && u.Host == h && u.Hostname() != ""
}

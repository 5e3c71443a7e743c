package cli

import (
	"fmt"
	"net"
	"net/netip"
)

// loopback reports whether addr (host:port) listens on loopback alone.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// BaseURLProblem says what goes wrong without base_url, and the fix; ""
// when mailed links can be made.
func (c *Config) BaseURLProblem() string {
	if c.BaseURL() != "" {
		return ""
	}
	return fmt.Sprintf("not set, and addr %s is not a loopback address, so mailed sign-in links cannot be made "+
		"(sign-in mail carries a code instead); set [server] base_url or RECUR_SERVER_BASE_URL to the address people open Recur at, "+
		"like https://journal.example.com or http://192.168.1.10:8080", c.Server.Addr)
}

// warnBaseURL says in one line at start-up when mailed links cannot be made.
func (m *Main) warnBaseURL() {
	if problem := m.Config.BaseURLProblem(); problem != "" {
		m.Logger.Warn("base_url is " + problem)
	}
}

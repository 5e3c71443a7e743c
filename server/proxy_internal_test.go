package server

import (
	"fmt"
	"net/http/httptest"
	"testing"
)

func TestClientIP(t *testing.T) {
	trusted, err := ParseTrustedProxies([]string{"10.0.0.0/8", "192.0.2.7", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer string
		xff        []string
		realIP     string
		want       string
	}{
		{name: "NoProxy", peer: "203.0.113.5:4000", want: "203.0.113.5"},
		{name: "SpoofFromUntrustedPeer", peer: "203.0.113.5:4000", xff: []string{"198.51.100.1"}, realIP: "198.51.100.2", want: "203.0.113.5"},
		{name: "TrustedProxy", peer: "10.1.2.3:4000", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "SingleTrustedAddress", peer: "192.0.2.7:4000", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "NeighbourOfSingleAddressNotTrusted", peer: "192.0.2.8:4000", xff: []string{"198.51.100.1"}, want: "192.0.2.8"},
		// The client wrote 1.1.1.1 itself; the proxy appended the real peer.
		{name: "ClientSpoofsLeftOfChain", peer: "10.1.2.3:4000", xff: []string{"1.1.1.1, 198.51.100.1"}, want: "198.51.100.1"},
		{name: "ChainOfTrustedProxies", peer: "10.1.2.3:4000", xff: []string{"1.1.1.1, 198.51.100.1, 10.9.9.9, 192.0.2.7"}, want: "198.51.100.1"},
		{name: "ChainOverSeveralHeaders", peer: "10.1.2.3:4000", xff: []string{"1.1.1.1", "198.51.100.1, 10.9.9.9"}, want: "198.51.100.1"},
		{name: "AllHopsTrusted", peer: "10.1.2.3:4000", xff: []string{"10.5.5.5, 10.6.6.6"}, want: "10.5.5.5"},
		{name: "GarbageHopStopsTheWalk", peer: "10.1.2.3:4000", xff: []string{"198.51.100.1, nonsense"}, want: "10.1.2.3"},
		{name: "HopWithPort", peer: "10.1.2.3:4000", xff: []string{"198.51.100.1:5555"}, want: "198.51.100.1"},
		{name: "IPv6", peer: "[fd00::1]:4000", xff: []string{"2001:db8::1"}, want: "2001:db8::1"},
		{name: "IPv4MappedPeer", peer: "[::ffff:10.1.2.3]:4000", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "RealIPFromTrustedProxy", peer: "10.1.2.3:4000", realIP: "198.51.100.9", want: "198.51.100.9"},
		{name: "ForwardedForWinsOverRealIP", peer: "10.1.2.3:4000", xff: []string{"198.51.100.1"}, realIP: "198.51.100.9", want: "198.51.100.1"},
		{name: "BadRealIP", peer: "10.1.2.3:4000", realIP: "not an address", want: "10.1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if tc.realIP != "" {
				r.Header.Set("X-Real-IP", tc.realIP)
			}
			if got := proxies(trusted).clientIP(r); got != tc.want {
				t.Errorf("clientIP = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseTrustedProxies(t *testing.T) {
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0", "fe80::1%eth0", ""} {
		if _, err := ParseTrustedProxies([]string{"127.0.0.1", bad}); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
	got, err := ParseTrustedProxies([]string{" 10.1.2.3/8 ", "::1", "::ffff:127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[10.0.0.0/8 ::1/128 127.0.0.1/32]"; fmt.Sprint(got) != want {
		t.Errorf("parsed %s, want %s", fmt.Sprint(got), want)
	}
}

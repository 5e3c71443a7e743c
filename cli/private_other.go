//go:build !unix

package cli

// restrictUmask does nothing where there is no umask.
func restrictUmask() {}

// secureDataDir does nothing where file modes do not say who may read.
func (m *Main) secureDataDir() error { return nil }

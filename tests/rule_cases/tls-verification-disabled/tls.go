package client

import (
	"crypto/tls"
	"crypto/x509"
)

func Configs(pool *x509.CertPool) (*tls.Config, *tls.Config) {
	// ruleid: tls-verification-disabled
	insecure := &tls.Config{InsecureSkipVerify: true}
	// ok: tls-verification-disabled
	pinned := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return insecure, pinned
}

package auth

import (
	"crypto/des"
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"

	"golang.org/x/crypto/bcrypt"
)

func Store(password string, key []byte) error {
	// ruleid: weak-cryptography
	sum := md5.Sum([]byte(password))
	// ruleid: weak-cryptography
	block, err := des.NewCipher(key)
	if err != nil {
		return err
	}
	// ruleid: weak-cryptography
	priv, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		return err
	}
	// ok: weak-cryptography
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	_, _, _, _ = sum, block, priv, hash
	return err
}

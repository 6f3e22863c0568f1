package otp

import (
	crand "crypto/rand"
	"fmt"
	"math/big"
	"math/rand"
	"time"
)

func NewOTP() string {
	// ruleid: insecure-randomness
	otp := fmt.Sprintf("%06d", rand.Intn(1000000))
	return otp
}

func NewSecureOTP() (string, error) {
	// ok: insecure-randomness
	tokenNum, err := crand.Int(crand.Reader, big.NewInt(1000000))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%06d", tokenNum.Int64()), nil
}

func Backoff() time.Duration {
	// ok: insecure-randomness
	return time.Duration(rand.Intn(100)) * time.Millisecond
}

package auth

import (
	"github.com/golang-jwt/jwt/v5"
)

func Claims(raw string, keyFunc jwt.Keyfunc) (jwt.MapClaims, error) {
	claims := jwt.MapClaims{}
	// ruleid: jwt-verification-disabled
	_, _, err := new(jwt.Parser).ParseUnverified(raw, claims)
	if err != nil {
		return nil, err
	}
	// ok: jwt-verification-disabled
	_, err = jwt.ParseWithClaims(raw, claims, keyFunc, jwt.WithValidMethods([]string{"RS256"}))
	return claims, err
}

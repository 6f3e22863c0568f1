package auth

import "errors"

var errMethod = errors.New("unexpected method")

func keyFor(t Token) (interface{}, error) {
	return secretKey, nil
}

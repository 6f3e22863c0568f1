package auth

import "errors"

var errMethod = errors.New("unexpected method")

func keyFor(t Token) (interface{}, error) {
	if t.Method() != "HS256" {
		return nil, errMethod
	}
	return secretKey, nil
}

// Package mathutil holds small numeric helpers: no rule may create an item for this change.
package mathutil

import (
	"errors"
	"sort"
	"strings"
)

var ErrEmpty = errors.New("mathutil: empty input")

func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func Median(values []float64) (float64, error) {
	if len(values) == 0 {
		return 0, ErrEmpty
	}
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	mid := len(sorted) / 2
	if len(sorted)%2 == 0 {
		return (sorted[mid-1] + sorted[mid]) / 2, nil
	}
	return sorted[mid], nil
}

func JoinNonEmpty(parts []string, sep string) string {
	kept := parts[:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

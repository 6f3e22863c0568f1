package main

import (
	"fmt"
	"os"
)

// ruleid: hardcoded-secrets
const githubPAT = "{{GITHUB_PAT}}"

func token() string {
	// ok: hardcoded-secrets
	return os.Getenv("GITHUB_TOKEN")
}

func main() {
	// ruleid: hardcoded-secrets
	apiSecret := "{{GENERIC_SECRET}}"
	// ok: hardcoded-secrets
	dbPassword := os.Getenv("DB_PASSWORD")
	fmt.Println(len(apiSecret), len(dbPassword), len(githubPAT), token())
}

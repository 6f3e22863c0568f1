package runner

import (
	"context"
	"os/exec"
)

func Log(ctx context.Context, ref, script string) error {
	// ruleid: command-injection
	out, err := exec.Command("sh", "-c", "git log "+ref).Output()
	if err != nil {
		return err
	}
	// ruleid: command-injection
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
	// ok: command-injection
	safe := exec.CommandContext(ctx, "git", "log", "--", ref)
	// ok: command-injection
	ready := exec.Command("sh", "-c", "echo ready")
	_, _, _ = out, cmd, safe
	return ready.Run()
}

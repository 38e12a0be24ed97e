package main

import (
	"context"
	"io"
)

const evalHelp = ""

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) int { return 0 }

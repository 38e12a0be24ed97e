package main

import (
	"context"
	"io"
)

const initHelp = ""
const evalHelp = ""

func cmdInit(args []string, stdout, stderr io.Writer) int                      { return 0 }
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) int { return 0 }

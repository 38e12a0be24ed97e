package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The loopback OpenAI-compatible server runs in a child process (this binary
// started with -serve-openai), so that the CPU it spends answering is not
// charged to the framework under test: the parent's getrusage sees only
// cogloop, langchaingo's client and net/http.

// chatRequest is the part of a chat-completions request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// serveOpenAI is the child's main: it listens on a free loopback port, prints
// the address, answers chat completions until its stdin closes (the parent
// went away), then exits. The reply is chosen by the prompt's first line
// ("ROLE: <agent id>") and sent after the delay named by the model
// ("bench-20ms").
func serveOpenAI() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve-openai:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	// Idle connections stay open for minutes, as a hosted API's do: with
	// 1,000 runs on a loaded machine a connection can wait in the client's
	// pool longer than ReadHeaderTimeout, and a POST on a connection the
	// server just closed fails ("server closed idle connection").
	srv := &http.Server{Handler: http.HandlerFunc(chatCompletion), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 5 * time.Minute}
	_ = srv.Serve(ln)
}

func chatCompletion(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	d, ok := realState.delayFor(req.Model, prompt)
	if !ok {
		d, _ = time.ParseDuration(strings.TrimPrefix(req.Model, "bench-"))
	}
	if d > 0 && sleep(r.Context(), d) != nil {
		return
	}
	role, _, _ := strings.Cut(prompt, "\n")
	text := replyFor(strings.TrimSpace(strings.TrimPrefix(role, "ROLE:")))
	if req.Stream {
		streamReply(w, req.Model, text)
		return
	}
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": text}}},
		"usage": map[string]any{"prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// openAIServer is the parent's handle on the child.
type openAIServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// URL is the base URL agents put in model_url.
	URL string
}

// startOpenAIServer starts the child and waits for its address.
func startOpenAIServer() (*openAIServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-serve-openai")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &openAIServer{cmd: cmd, stdin: stdin}
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("loopback model server: %w", err)
	}
	s.URL = "http://" + strings.TrimSpace(addr) + "/v1"
	return s, nil
}

// Close stops the child.
func (s *openAIServer) Close() {
	_ = s.stdin.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// Command fakeollama serves the fake Ollama of the tests on a loopback
// port, answering from the scripted lexicon, so Recur can be tried by hand
// through an outage: its model calls fail for -fail-for, then work.
//
//	go run ./scripts/fakeollama -addr 127.0.0.1:11500 -fault 500 -fail-for 5m
//	RECUR_OLLAMA_URL=http://127.0.0.1:11500 recur serve
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/recur-journal/recur/pipeline/fakeollama"
	"github.com/recur-journal/recur/pipeline/scripted"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11500", "loopback address to listen on")
	lexicon := flag.String("lexicon", "pipeline/testdata/lexicon.json", "the scripted model's lexicon")
	fault := flag.String("fault", "500", "how calls fail: 500, loading, hang or refuse")
	failFor := flag.Duration("fail-for", 5*time.Minute, "how long calls fail after the start; 0 for not at all")
	flag.Parse()
	if err := run(*addr, *lexicon, *fault, *failFor); err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(1)
	}
}

func run(addr, lexicon, fault string, failFor time.Duration) error {
	if host, _, err := net.SplitHostPort(addr); err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("-addr %q is not a loopback address", addr)
	}
	lex, err := scripted.Load(lexicon)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := fakeollama.Listen(addr, func(format string, args ...any) { log.Error(fmt.Sprintf(format, args...)) })
	if err != nil {
		return err
	}
	defer s.Close()
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })

	var mend func()
	switch fault {
	case "500":
		s.SetFault(fakeollama.Reply{Status: 500, Error: "model runner crashed"})
		mend = s.ClearFault
	case "loading":
		s.SetFault(fakeollama.LoadingModel())
		mend = s.ClearFault
	case "hang":
		s.SetFault(fakeollama.Reply{Delay: 24 * time.Hour})
		mend = s.ClearFault
	case "refuse":
		s.Down()
		mend = s.Up
	default:
		return fmt.Errorf("-fault %q: want 500, loading, hang or refuse", fault)
	}
	log.Info("fake ollama listening", "url", s.URL(), "fault", fault, "fail_for", failFor.String())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(failFor):
	}
	mend()
	st := s.Stats()
	log.Info("calls work again", "chat_calls_while_failing", st.ChatCalls, "embed_calls_while_failing", st.EmbedCalls)
	<-ctx.Done()
	st = s.Stats()
	log.Info("stopped", "chat_calls", st.ChatCalls, "embed_calls", st.EmbedCalls)
	return nil
}

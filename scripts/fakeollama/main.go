// Command fakeollama serves the fake Ollama of the tests on a loopback
// port, answering from the scripted lexicon, so Recur can be tried by hand
// without a model: entries are analysed at once. With -fail-for, its model
// calls fail that long first, to try Recur through an outage.
//
//	go run ./scripts/fakeollama
//	go run ./scripts/fakeollama -addr 127.0.0.1:11500 -fault 500 -fail-for 5m
//	RECUR_MODEL_URL=http://127.0.0.1:11500 recur serve
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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

// config is what the flags say.
type config struct {
	addr, lexicon, fault string
	failFor              time.Duration
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, nil)), nil); err != nil {
		fmt.Fprintln(os.Stderr, "fakeollama:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("fakeollama", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:11500", "loopback address to listen on")
	fs.StringVar(&cfg.lexicon, "lexicon", "pipeline/testdata/lexicon.json", "the scripted model's lexicon")
	fs.StringVar(&cfg.fault, "fault", "500", "how calls fail while they fail: 500, loading, hang or refuse")
	fs.DurationVar(&cfg.failFor, "fail-for", 0, "how long calls fail after the start, such as 5m; 0 (the default) for not at all")
	return cfg, fs.Parse(args)
}

// run serves until ctx ends; listening, when not nil, is told the server's
// URL once it listens.
func run(ctx context.Context, cfg config, log *slog.Logger, listening func(url string)) error {
	if host, _, err := net.SplitHostPort(cfg.addr); err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("-addr %q is not a loopback address", cfg.addr)
	}
	lex, err := scripted.Load(cfg.lexicon)
	if err != nil {
		return err
	}
	s, err := fakeollama.Listen(cfg.addr, func(format string, args ...any) { log.Error(fmt.Sprintf(format, args...)) })
	if err != nil {
		return err
	}
	defer s.Close()
	s.OnChat(func(req *api.ChatRequest) fakeollama.Reply { return fakeollama.Reply{Content: lex.Answer(req)} })

	var mend func()
	switch cfg.fault {
	case "500":
		mend = s.ClearFault
		if cfg.failFor > 0 {
			s.SetFault(fakeollama.Reply{Status: 500, Error: "model runner crashed"})
		}
	case "loading":
		mend = s.ClearFault
		if cfg.failFor > 0 {
			s.SetFault(fakeollama.LoadingModel())
		}
	case "hang":
		mend = s.ClearFault
		if cfg.failFor > 0 {
			s.SetFault(fakeollama.Reply{Delay: 24 * time.Hour})
		}
	case "refuse":
		mend = s.Up
		if cfg.failFor > 0 {
			s.Down()
		}
	default:
		return fmt.Errorf("-fault %q: want 500, loading, hang or refuse", cfg.fault)
	}
	log.Info("fake ollama listening", "url", s.URL(), "fault", cfg.fault, "fail_for", cfg.failFor.String())
	if listening != nil {
		listening(s.URL())
	}
	if cfg.failFor > 0 {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(cfg.failFor):
		}
		mend()
		st := s.Stats()
		log.Info("calls work again", "chat_calls_while_failing", st.ChatCalls, "embed_calls_while_failing", st.EmbedCalls)
	}
	<-ctx.Done()
	st := s.Stats()
	log.Info("stopped", "chat_calls", st.ChatCalls, "embed_calls", st.EmbedCalls)
	return nil
}

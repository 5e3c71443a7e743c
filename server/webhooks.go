package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// webhooksTag is the OpenAPI tag of the webhook routes.
var webhooksTag = &huma.Tag{Name: "Webhooks", Description: "URLs told of events in the user's journal: " +
	"each delivery is a POST of {id, type, created_at, data} signed in the Recur-Signature header, retried with backoff, and logged."}

// Webhook is a URL the user registered to be told of events.
type Webhook struct {
	ID        string    `json:"id" format:"uuid" doc:"The webhook's id."`
	URL       string    `json:"url" doc:"Where each event is POSTed."`
	Events    []string  `json:"events" doc:"The event types sent to it."`
	CreatedAt Timestamp `json:"created_at" doc:"When the webhook was registered."`
}

// NewWebhook is a webhook as its registration answers it, with its secret.
type NewWebhook struct {
	Webhook
	Secret string `json:"secret" doc:"The secret that signs deliveries: check each one's Recur-Signature header, t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\" keyed with it>. Shown only in this answer."`
}

// WebhookDelivery is one event sent, or being sent, to a webhook or another channel.
type WebhookDelivery struct {
	ID             string          `json:"id" format:"uuid" doc:"The delivery's id."`
	EventID        string          `json:"event_id" format:"uuid" doc:"The event's id, the body's id: the same event reaches each webhook with the same id."`
	EventType      string          `json:"event_type" doc:"The event's type, or test for a test notification."`
	State          string          `json:"state" enum:"pending,delivered,failed,dropped" doc:"pending: waiting for its first or next attempt; delivered: answered with a 2xx status; failed: every attempt failed; dropped: over the account's hourly limit, never sent."`
	Attempts       int             `json:"attempts" minimum:"0" doc:"How many attempts were made."`
	NextAttemptAt  *Timestamp      `json:"next_attempt_at" nullable:"true" doc:"When the next attempt is due; null unless pending."`
	ResponseStatus *int            `json:"response_status" nullable:"true" doc:"The HTTP status of the last answer; null when none came."`
	Error          *string         `json:"error" nullable:"true" doc:"Why the last attempt failed; null when it did not."`
	Body           json.RawMessage `json:"body" doc:"The JSON body posted: {id, type, created_at, data}."`
	CreatedAt      Timestamp       `json:"created_at" doc:"When the event happened."`
	UpdatedAt      Timestamp       `json:"updated_at" doc:"When the delivery last changed."`
}

// webhookKinds are the channels the webhook routes see.
var webhookKinds = []string{store.ChannelWebhook}

func newWebhook(w *store.Channel) Webhook {
	return Webhook{ID: w.ID, URL: w.URL, Events: w.Events, CreatedAt: Timestamp(w.CreatedAt)}
}

type createWebhookInput struct {
	Body struct {
		URL    string   `json:"url" minLength:"1" maxLength:"2048" doc:"An http or https URL. One that leads to a loopback, private or link-local address is refused unless the server's owner allows private targets."`
		Events []string `json:"events" minItems:"1" doc:"The event types to send: capture.processed, capture.failed, pattern.detected, pattern.urgent, pattern.reopened, pattern.closed, review.ready, reminder."`
		Secret *string  `json:"secret,omitempty" doc:"The secret to sign deliveries with, 16 to 256 characters. Without it one is generated and shown in the answer, once."`
	}
}

type webhookInput struct {
	Webhook string `path:"webhook" format:"uuid" doc:"The webhook's id."`
}

type listWebhooksInput struct {
	PageParams
}

type listDeliveriesInput struct {
	Webhook string `path:"webhook" format:"uuid" doc:"The webhook's id."`
	PageParams
}

func (s *Server) registerWebhooks() {
	huma.Register(s.api, op(http.MethodGet, "/webhooks", "list-webhooks", webhooksTag.Name, "List webhooks, newest first",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.listWebhooks)

	o := op(http.MethodPost, "/webhooks", "create-webhook", webhooksTag.Name, "Register a webhook",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " The answer carries the secret that signs deliveries; it is never shown again." +
		" A URL whose host is or resolves to a loopback, private or link-local address is refused (422) unless the server's owner sets" +
		" `[notify] allow_private_targets = true`; the address is checked again at every delivery, redirects included." +
		" An account may have at most 10 channels (webhooks, ntfy topics and mail together) and 300 deliveries an hour (beyond it, deliveries are logged as dropped)." +
		" A failed delivery (no answer, or not 2xx within 10 seconds) is tried again after 30 s, 2 min, 10 min, 1 h and 6 h."
	huma.Register(s.api, o, s.createWebhook)

	o = op(http.MethodDelete, "/webhooks/{webhook}", "delete-webhook", webhooksTag.Name, "Remove a webhook and its delivery log",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	huma.Register(s.api, o, s.deleteWebhook)

	huma.Register(s.api, op(http.MethodGet, "/webhooks/{webhook}/deliveries", "list-webhook-deliveries", webhooksTag.Name,
		"List a webhook's deliveries, newest first", account.ScopeSettingsRead,
		http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity), s.listWebhookDeliveries)

	o = op(http.MethodPost, "/webhooks/{webhook}/tests", "test-webhook", webhooksTag.Name, "Send a test event to a webhook",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusAccepted
	o.Description += " A delivery of type `test` goes to this webhook alone, whatever events it asked for; its delivery log says how it went."
	huma.Register(s.api, o, s.testWebhook)
}

func (s *Server) listWebhooks(ctx context.Context, in *listWebhooksInput) (*struct{ Body List[Webhook] }, error) {
	list, total, err := s.opts.Store.ListChannels(ctx, current(ctx).User.ID, webhookKinds, in.store())
	if err != nil {
		return nil, err
	}
	out := make([]Webhook, len(list))
	for i := range list {
		out[i] = newWebhook(&list[i])
	}
	return newList(out, total, in.PageParams, link(ctx, "/webhooks")), nil
}

func (s *Server) createWebhook(ctx context.Context, in *createWebhookInput) (*struct{ Body Data[NewWebhook] }, error) {
	w, err := s.opts.Notifier.CreateWebhook(ctx, current(ctx).User.ID, in.Body.URL, in.Body.Events, in.Body.Secret)
	if err != nil {
		return nil, err
	}
	return one(NewWebhook{Webhook: newWebhook(&w.Channel), Secret: w.Secret}), nil
}

func (s *Server) deleteWebhook(ctx context.Context, in *webhookInput) (*struct{}, error) {
	return nil, s.opts.Store.DeleteChannel(ctx, current(ctx).User.ID, webhookKinds, in.Webhook)
}

func (s *Server) listWebhookDeliveries(ctx context.Context, in *listDeliveriesInput) (*struct{ Body List[WebhookDelivery] }, error) {
	list, total, err := s.opts.Store.ListDeliveries(ctx, current(ctx).User.ID, webhookKinds, in.Webhook, in.store())
	if err != nil {
		return nil, err
	}
	out := newDeliveries(list)
	return newList(out, total, in.PageParams, link(ctx, "/webhooks/"+in.Webhook+"/deliveries")), nil
}

func newDeliveries(list []store.Delivery) []WebhookDelivery {
	out := make([]WebhookDelivery, len(list))
	for i, d := range list {
		out[i] = WebhookDelivery{ID: d.ID, EventID: d.EventID, EventType: d.EventType, State: d.State, Attempts: d.Attempts,
			NextAttemptAt: stamp(d.NextAttemptAt), ResponseStatus: d.ResponseStatus, Body: json.RawMessage(d.Body),
			CreatedAt: Timestamp(d.CreatedAt), UpdatedAt: Timestamp(d.UpdatedAt)}
		if d.LastError != "" {
			out[i].Error = &d.LastError
		}
	}
	return out
}

func (s *Server) testWebhook(ctx context.Context, in *webhookInput) (*struct{}, error) {
	return nil, s.opts.Notifier.SendTest(ctx, current(ctx).User.ID, webhookKinds, in.Webhook)
}

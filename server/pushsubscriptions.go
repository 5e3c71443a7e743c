package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/notify"
	"github.com/recur-journal/recur/store"
)

// pushTag is the OpenAPI tag of the Web Push routes.
var pushTag = &huma.Tag{Name: "Push subscriptions", Description: "Browsers (the installed web app) told of events by Web Push: " +
	"each message is encrypted for the browser (RFC 8291) and signed with the server's VAPID key (RFC 8292)."}

// pushKinds are the channels the push subscription routes see.
var pushKinds = []string{store.ChannelWebPush}

// PushSubscription is a browser registered for Web Push.
type PushSubscription struct {
	ID        string    `json:"id" format:"uuid" doc:"The subscription's id."`
	Endpoint  string    `json:"endpoint" doc:"The browser's push service endpoint."`
	Events    []string  `json:"events" doc:"The event types sent to it."`
	CreatedAt Timestamp `json:"created_at" doc:"When the browser subscribed."`
}

func newPushSubscription(c *store.Channel) PushSubscription {
	return PushSubscription{ID: c.ID, Endpoint: c.URL, Events: c.Events, CreatedAt: Timestamp(c.CreatedAt)}
}

// VAPIDKey is the server's VAPID public key.
type VAPIDKey struct {
	PublicKey string `json:"public_key" doc:"The server's VAPID public key, an uncompressed P-256 point in base64url: pass it to PushManager.subscribe as applicationServerKey."`
}

type createPushSubscriptionInput struct {
	Body struct {
		Endpoint       string   `json:"endpoint" minLength:"1" maxLength:"2048" doc:"PushSubscription.endpoint: the push service URL. One that leads to a loopback, private or link-local address is refused unless the server's owner allows private targets."`
		ExpirationTime *float64 `json:"expirationTime,omitempty" nullable:"true" doc:"As the browser gives it; not used."`
		Keys           struct {
			P256dh string `json:"p256dh" minLength:"1" maxLength:"256" doc:"The browser's P-256 public key, base64url."`
			Auth   string `json:"auth" minLength:"1" maxLength:"64" doc:"The browser's auth secret, base64url."`
		} `json:"keys" doc:"PushSubscription.toJSON().keys."`
		Events []string `json:"events,omitempty" doc:"The event types to send: capture.processed, capture.failed, pattern.detected, pattern.urgent, pattern.reopened, pattern.closed, review.ready, reminder. Left out: pattern.detected, pattern.urgent, pattern.reopened, review.ready and reminder."`
	}
}

type pushSubscriptionInput struct {
	Subscription string `path:"subscription" format:"uuid" doc:"The subscription's id."`
}

func (s *Server) registerPushSubscriptions() {
	huma.Register(s.api, op(http.MethodGet, "/push-subscriptions/vapid-key", "get-vapid-key", pushTag.Name, "Get the server's VAPID public key",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden), s.getVAPIDKey)

	huma.Register(s.api, op(http.MethodGet, "/push-subscriptions", "list-push-subscriptions", pushTag.Name, "List the browsers subscribed to Web Push, newest first",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.listPushSubscriptions)

	o := op(http.MethodPost, "/push-subscriptions", "create-push-subscription", pushTag.Name, "Subscribe a browser to Web Push",
		account.ScopeDevicesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " The body is the browser's PushSubscription JSON (`subscription.toJSON()`), with `events` optionally." +
		" An endpoint registered before, by this account or another that used the same browser, is replaced: it reaches the account that registered it last, with the keys it gave then." +
		" An endpoint on a loopback, private or link-local address is refused (422) unless the server's owner sets `[notify] allow_private_targets = true`." +
		" A subscription made in a browser session ends with it: when that browser signs out, is signed out from elsewhere or by a password change, or its session runs out, the device gets no more notifications. One made with a bearer token lasts until it is deleted." +
		" Subscriptions count among the account's 10 channels and share the 300 deliveries an hour; a subscription its push service says is gone (404 or 410) is removed."
	huma.Register(s.api, o, s.createPushSubscription)

	o = op(http.MethodDelete, "/push-subscriptions/{subscription}", "delete-push-subscription", pushTag.Name, "Unsubscribe a browser",
		account.ScopeDevicesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	huma.Register(s.api, o, s.deletePushSubscription)
}

func (s *Server) getVAPIDKey(ctx context.Context, _ *struct{}) (*struct{ Body Data[VAPIDKey] }, error) {
	k, err := s.opts.Notifier.VAPIDPublicKey()
	if err != nil {
		return nil, err
	}
	return one(VAPIDKey{PublicKey: k}), nil
}

func (s *Server) listPushSubscriptions(ctx context.Context, in *listWebhooksInput) (*struct{ Body List[PushSubscription] }, error) {
	list, total, err := s.opts.Store.ListChannels(ctx, current(ctx).User.ID, pushKinds, in.store())
	if err != nil {
		return nil, err
	}
	out := make([]PushSubscription, len(list))
	for i := range list {
		out[i] = newPushSubscription(&list[i])
	}
	return newList(out, total, in.PageParams, link(ctx, "/push-subscriptions")), nil
}

func (s *Server) createPushSubscription(ctx context.Context, in *createPushSubscriptionInput) (*struct{ Body Data[PushSubscription] }, error) {
	b := in.Body
	sub := notify.PushSubscription{Endpoint: b.Endpoint, P256dh: b.Keys.P256dh, Auth: b.Keys.Auth}
	if current(ctx).Token == nil {
		sub.Session = s.sessions.Token(ctx) // it ends with this browser session
	}
	c, err := s.opts.Notifier.Subscribe(ctx, current(ctx).User.ID, sub, b.Events)
	if err != nil {
		return nil, err
	}
	return one(newPushSubscription(c)), nil
}

func (s *Server) deletePushSubscription(ctx context.Context, in *pushSubscriptionInput) (*struct{}, error) {
	return nil, s.opts.Store.DeleteChannel(ctx, current(ctx).User.ID, pushKinds, in.Subscription)
}

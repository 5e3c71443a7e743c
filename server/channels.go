package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// channelsTag is the OpenAPI tag of the ntfy and mail channel routes.
var channelsTag = &huma.Tag{Name: "Channels", Description: "ntfy topics and mail that tell the user of the same events as webhooks, in words, and the daily reminder to write."}

// channelKinds are the channels the channel routes see; webhooks have routes of their own.
var channelKinds = []string{store.ChannelNtfy, store.ChannelMail}

// Channel is an ntfy topic or the account's mail, told of events.
type Channel struct {
	ID        string    `json:"id" format:"uuid" doc:"The channel's id."`
	Kind      string    `json:"kind" enum:"ntfy,mail" doc:"ntfy: a message to an ntfy topic; mail: a mail to the account's address."`
	URL       *string   `json:"url" nullable:"true" doc:"The ntfy topic's URL; null for mail."`
	HasToken  bool      `json:"has_token" doc:"Whether an ntfy access token is kept for it (the token itself is never shown)."`
	Events    []string  `json:"events" doc:"The event types sent to it."`
	CreatedAt Timestamp `json:"created_at" doc:"When the channel was added."`
}

func newChannel(c *store.Channel) Channel {
	out := Channel{ID: c.ID, Kind: c.Kind, HasToken: c.Token != "", Events: c.Events, CreatedAt: Timestamp(c.CreatedAt)}
	if c.URL != "" {
		out.URL = &c.URL
	}
	return out
}

type createChannelInput struct {
	Body struct {
		Kind   string   `json:"kind" enum:"ntfy,mail" doc:"ntfy or mail."`
		URL    string   `json:"url,omitempty" maxLength:"2048" doc:"For ntfy, the topic's URL, such as https://ntfy.sh/my-secret-topic; under the same rule on private addresses as webhooks. Not for mail."`
		Token  string   `json:"token,omitempty" maxLength:"256" doc:"For ntfy, an access token sent as Authorization: Bearer; kept, never shown again."`
		Events []string `json:"events" minItems:"1" doc:"The event types to send: capture.processed, capture.failed, pattern.detected, pattern.urgent, pattern.reopened, pattern.closed, review.ready, reminder."`
	}
}

type channelInput struct {
	Channel string `path:"channel" format:"uuid" doc:"The channel's id."`
}

type listChannelDeliveriesInput struct {
	Channel string `path:"channel" format:"uuid" doc:"The channel's id."`
	PageParams
}

func (s *Server) registerChannels() {
	huma.Register(s.api, op(http.MethodGet, "/channels", "list-channels", channelsTag.Name, "List ntfy and mail channels, newest first",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.listChannels)

	o := op(http.MethodPost, "/channels", "create-channel", channelsTag.Name, "Add an ntfy or mail channel",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " Each event is told in words: an ntfy message with a title (urgent patterns at high priority), or a mail to the account's address." +
		" An ntfy URL on a loopback, private or link-local address is refused (422) unless the server's owner sets `[notify] allow_private_targets = true`." +
		" Channels share the limits of webhooks: 10 an account in all, 300 deliveries an hour; failed deliveries are retried the same way."
	huma.Register(s.api, o, s.createChannel)

	o = op(http.MethodDelete, "/channels/{channel}", "delete-channel", channelsTag.Name, "Remove a channel and its delivery log",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	huma.Register(s.api, o, s.deleteChannel)

	huma.Register(s.api, op(http.MethodGet, "/channels/{channel}/deliveries", "list-channel-deliveries", channelsTag.Name,
		"List a channel's deliveries, newest first", account.ScopeSettingsRead,
		http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity), s.listChannelDeliveries)

	o = op(http.MethodPost, "/channels/{channel}/tests", "test-channel", channelsTag.Name, "Send a test notification to a channel",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusAccepted
	o.Description += " A notification of type `test` goes to this channel alone; its delivery log says how it went."
	huma.Register(s.api, o, s.testChannel)
}

func (s *Server) listChannels(ctx context.Context, in *listWebhooksInput) (*struct{ Body List[Channel] }, error) {
	list, total, err := s.opts.Store.ListChannels(ctx, current(ctx).User.ID, channelKinds, in.store())
	if err != nil {
		return nil, err
	}
	out := make([]Channel, len(list))
	for i := range list {
		out[i] = newChannel(&list[i])
	}
	return newList(out, total, in.PageParams, link(ctx, "/channels")), nil
}

func (s *Server) createChannel(ctx context.Context, in *createChannelInput) (*struct{ Body Data[Channel] }, error) {
	c, err := s.opts.Notifier.CreateChannel(ctx, current(ctx).User.ID, in.Body.Kind, in.Body.URL, in.Body.Token, in.Body.Events)
	if err != nil {
		return nil, err
	}
	return one(newChannel(c)), nil
}

func (s *Server) deleteChannel(ctx context.Context, in *channelInput) (*struct{}, error) {
	return nil, s.opts.Store.DeleteChannel(ctx, current(ctx).User.ID, channelKinds, in.Channel)
}

func (s *Server) listChannelDeliveries(ctx context.Context, in *listChannelDeliveriesInput) (*struct{ Body List[WebhookDelivery] }, error) {
	list, total, err := s.opts.Store.ListDeliveries(ctx, current(ctx).User.ID, channelKinds, in.Channel, in.store())
	if err != nil {
		return nil, err
	}
	return newList(newDeliveries(list), total, in.PageParams, link(ctx, "/channels/"+in.Channel+"/deliveries")), nil
}

func (s *Server) testChannel(ctx context.Context, in *channelInput) (*struct{}, error) {
	return nil, s.opts.Notifier.SendTest(ctx, current(ctx).User.ID, channelKinds, in.Channel)
}

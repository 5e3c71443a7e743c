package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
)

// ListedToken is a token of the account as the settings list it: never its
// secret, which is not kept.
type ListedToken struct {
	ID         string     `json:"id" format:"uuid" doc:"The token's id: the part of the token before the |."`
	Name       string     `json:"name" doc:"The token's name: the device that signed in, the name given to recur token create, or the app's name."`
	Scopes     []string   `json:"scopes" doc:"The scopes the token carries (see the bearer security scheme); * carries every scope."`
	App        bool       `json:"app" doc:"True for an app's token (see /apps)."`
	AppID      *string    `json:"app_id" format:"uuid" nullable:"true" doc:"The app the token belongs to; null for a personal access token."`
	Current    bool       `json:"current" doc:"True for the token that asks."`
	LastUsedAt *Timestamp `json:"last_used_at" nullable:"true" doc:"When the token was last used, to the minute; null until it is."`
	ExpiresAt  *Timestamp `json:"expires_at" nullable:"true" doc:"When the token stops working; null when it does not expire."`
	CreatedAt  Timestamp  `json:"created_at" doc:"When the token was made."`
}

type tokenInput struct {
	Token string `path:"token" format:"uuid" doc:"The token's id."`
}

type listTokensInput struct {
	PageParams
}

func (s *Server) registerTokens() {
	o := accountOp(http.MethodGet, "/tokens", "list-tokens", "List the tokens that work, newest first", http.StatusUnprocessableEntity)
	o.Description += " Personal access tokens and apps' tokens alike, neither revoked nor expired. A token's secret is never shown: only a hash of it is kept."
	huma.Register(s.api, o, s.listTokens)

	o = accountOp(http.MethodDelete, "/tokens/{token}", "delete-token", "Revoke a token", http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " The token is refused (401) from its next request on. Revoking an app's token removes the app too, as DELETE /apps/{app} does."
	huma.Register(s.api, o, s.deleteToken)
}

func (s *Server) listTokens(ctx context.Context, in *listTokensInput) (*struct{ Body List[ListedToken] }, error) {
	list, total, err := s.accounts.Tokens(ctx, current(ctx), in.store())
	if err != nil {
		return nil, err
	}
	out := make([]ListedToken, len(list))
	for i := range list {
		out[i] = newListedToken(&list[i])
	}
	return newList(out, total, in.PageParams, link(ctx, "/tokens")), nil
}

func newListedToken(t *account.ListedToken) ListedToken {
	a := ListedToken{ID: t.ID, Name: t.Name, Scopes: t.Scopes, App: t.App, Current: t.Current,
		LastUsedAt: stamp(t.LastUsedAt), ExpiresAt: stamp(t.ExpiresAt), CreatedAt: Timestamp(t.CreatedAt)}
	if t.AppID != "" {
		a.AppID = &t.AppID
	}
	return a
}

func (s *Server) deleteToken(ctx context.Context, in *tokenInput) (*struct{}, error) {
	return nil, s.accounts.RevokeToken(ctx, current(ctx), in.Token)
}

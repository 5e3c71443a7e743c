package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// defaultAppScopes are the scopes of an app registered without any: enough
// for a shortcut that posts entries, and nothing more.
var defaultAppScopes = []string{string(account.ScopeCapturesWrite)}

// App is a program the user let in with a token of its own, such as a phone
// shortcut that posts entries.
type App struct {
	ID         string     `json:"id" format:"uuid" doc:"The app's id."`
	Name       string     `json:"name" doc:"What the user calls the app, 1 to 255 characters."`
	Scopes     []string   `json:"scopes" doc:"The scopes the app's token carries (see the bearer security scheme); * carries every scope."`
	LastUsedAt *Timestamp `json:"last_used_at" nullable:"true" doc:"When the app's token was last used, to the minute; null until it is."`
	CreatedAt  Timestamp  `json:"created_at" doc:"When the app was registered."`
	UpdatedAt  Timestamp  `json:"updated_at" doc:"When the app was last renamed or given other scopes."`
}

// NewApp is an app as its registration answers it: with its token, shown
// this once and never again.
type NewApp struct {
	App
	Token string `json:"token" doc:"The app's bearer token, <id>|<secret>: send it as Authorization: Bearer <token>. Shown only in this answer; store it now."`
}

func newApp(a *store.App) App {
	return App{ID: a.ID, Name: a.Name, Scopes: a.Scopes, LastUsedAt: stamp(a.LastUsedAt),
		CreatedAt: Timestamp(a.CreatedAt), UpdatedAt: Timestamp(a.UpdatedAt)}
}

type createAppInput struct {
	Body struct {
		Name   string    `json:"name" minLength:"1" maxLength:"255" doc:"What to call the app, 1 to 255 characters."`
		Scopes *[]string `json:"scopes,omitempty" doc:"The scopes to give the app's token, at least one: scope names of the bearer security scheme, or * for every scope. Default: [\"captures:write\"], enough to post entries and no more. A token can only grant scopes it carries itself; asking for more is 403."`
	}
}

type updateAppInput struct {
	App  string `path:"app" format:"uuid" doc:"The app's id."`
	Body *struct {
		Name   *string   `json:"name,omitempty" minLength:"1" maxLength:"255" doc:"A new name, 1 to 255 characters."`
		Scopes *[]string `json:"scopes,omitempty" doc:"The scopes that replace the app's, at least one. A token can only grant scopes it carries itself; asking for more is 403."`
	}
}

type appInput struct {
	App string `path:"app" format:"uuid" doc:"The app's id."`
}

type listAppsInput struct {
	PageParams
}

func (s *Server) registerApps() {
	huma.Register(s.api, op(http.MethodGet, "/apps", "list-apps", "Apps", "List apps, newest first",
		account.ScopeAppsManage, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity), s.listApps)

	o := op(http.MethodPost, "/apps", "create-app", "Apps", "Register an app and make its token",
		account.ScopeAppsManage, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " The app gets a token of its own that does not expire. The answer carries it in `token`; it is never shown again." +
		" Without `scopes` the token carries only `captures:write`, enough for a shortcut that posts entries." +
		" A token can only grant scopes it carries itself (`*` only if it carries `*`): asking for more is 403 naming the scope it lacks. A session may grant any."
	huma.Register(s.api, o, s.createApp)

	huma.Register(s.api, op(http.MethodGet, "/apps/{app}", "get-app", "Apps", "Show an app",
		account.ScopeAppsManage, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound), s.getApp)

	o = op(http.MethodPatch, "/apps/{app}", "update-app", "Apps", "Rename an app or change its scopes",
		account.ScopeAppsManage, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity)
	o.Description += " The app keeps its token, which carries the new scopes from the next request on." +
		" A token can only grant scopes it carries itself (`*` only if it carries `*`): asking for more is 403 naming the scope it lacks. A session may grant any."
	huma.Register(s.api, o, s.updateApp)

	o = op(http.MethodDelete, "/apps/{app}", "delete-app", "Apps", "Remove an app and revoke its token",
		account.ScopeAppsManage, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " The app's token is refused (401) from then on."
	huma.Register(s.api, o, s.deleteApp)
}

func (s *Server) listApps(ctx context.Context, in *listAppsInput) (*struct{ Body List[App] }, error) {
	list, total, err := s.opts.Store.ListApps(ctx, current(ctx).User.ID, in.store())
	if err != nil {
		return nil, err
	}
	out := make([]App, len(list))
	for i := range list {
		out[i] = newApp(&list[i])
	}
	return newList(out, total, in.PageParams, link(ctx, "/apps")), nil
}

func (s *Server) createApp(ctx context.Context, in *createAppInput) (*struct{ Body Data[NewApp] }, error) {
	p := current(ctx)
	scopes := defaultAppScopes
	if in.Body.Scopes != nil {
		scopes = *in.Body.Scopes
	}
	if err := account.CheckGrant(p, scopes); err != nil {
		return nil, err
	}
	a := store.App{UserID: p.User.ID, Name: in.Body.Name, Scopes: scopes}
	token, err := s.opts.Store.CreateApp(ctx, &a)
	if err != nil {
		return nil, err
	}
	return one(NewApp{App: newApp(&a), Token: token}), nil
}

func (s *Server) getApp(ctx context.Context, in *appInput) (*struct{ Body Data[App] }, error) {
	a, err := s.opts.Store.FindApp(ctx, current(ctx).User.ID, in.App)
	if err != nil {
		return nil, err
	}
	return one(newApp(a)), nil
}

func (s *Server) updateApp(ctx context.Context, in *updateAppInput) (*struct{ Body Data[App] }, error) {
	p := current(ctx)
	var upd store.AppUpdate
	if in.Body != nil {
		upd = store.AppUpdate{Name: in.Body.Name, Scopes: in.Body.Scopes}
	}
	if upd.Scopes != nil {
		if err := account.CheckGrant(p, *upd.Scopes); err != nil {
			return nil, err
		}
	}
	a, err := s.opts.Store.UpdateApp(ctx, p.User.ID, in.App, upd)
	if err != nil {
		return nil, err
	}
	return one(newApp(a)), nil
}

func (s *Server) deleteApp(ctx context.Context, in *appInput) (*struct{}, error) {
	return nil, s.opts.Store.DeleteApp(ctx, current(ctx).User.ID, in.App)
}

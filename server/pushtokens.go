package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

type savePushTokenInput struct {
	Body struct {
		Token    string `json:"token" minLength:"1" maxLength:"4096" doc:"The push token the device's push service gave the app install, 1 to 4096 characters."`
		Platform string `json:"platform,omitempty" enum:"android,ios,web" doc:"The device's platform. Left out: the one stored before, if any."`
	}
}

type pushTokenInput struct {
	FCMToken string `path:"fcmToken" maxLength:"4096" doc:"The push token, as it was registered."`
}

func (s *Server) registerPushTokens() {
	o := op(http.MethodPost, "/fcm-tokens/me", "save-push-token", "Devices", "Register a device's push token",
		account.ScopeDevicesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.DefaultStatus = http.StatusCreated
	o.Description += " When the server's owner sets `[push] fcm_credentials_file`, new, urgent and returning patterns, the weekly review and the reminder are sent to the account's tokens through Firebase Cloud Messaging; otherwise the token is only stored." +
		" Registering a token again is harmless and updates it; a token registered by another account moves to this one," +
		" since an app install is signed into one account at a time."
	huma.Register(s.api, o, s.savePushToken)

	o = op(http.MethodDelete, "/fcm-tokens/me/{fcmToken}", "delete-push-token", "Devices", "Remove a device's push token",
		account.ScopeDevicesWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound)
	o.DefaultStatus = http.StatusNoContent
	o.Description += " A token that is not registered to this account gives 404."
	huma.Register(s.api, o, s.deletePushToken)
}

func (s *Server) savePushToken(ctx context.Context, in *savePushTokenInput) (*struct{}, error) {
	p := store.PushToken{UserID: current(ctx).User.ID, Token: in.Body.Token, Platform: in.Body.Platform}
	return nil, s.opts.Store.SavePushToken(ctx, &p)
}

func (s *Server) deletePushToken(ctx context.Context, in *pushTokenInput) (*struct{}, error) {
	return nil, s.opts.Store.DeletePushToken(ctx, current(ctx).User.ID, in.FCMToken)
}

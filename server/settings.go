package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// Setting is one of the user's settings.
type Setting struct {
	Key   string `json:"key" doc:"timezone: an IANA zone name (default UTC); it cuts days and sets the nightly refresh. app_locale: a language tag (default en); the language of pattern descriptions."`
	Value string `json:"value"`
}

type putSettingInput struct {
	Key  string `path:"key" doc:"The setting to change: timezone or app_locale."`
	Body struct {
		Value string `json:"value" maxLength:"100" doc:"The new value, at most 100 characters."`
	}
}

func (s *Server) registerSettings() {
	huma.Register(s.api, op(http.MethodGet, "/settings/me", "list-settings", "Settings", "List the user's settings, defaults included",
		account.ScopeSettingsRead, http.StatusUnauthorized, http.StatusForbidden), s.listSettings)
	o := op(http.MethodPut, "/settings/me/{key}", "put-setting", "Settings", "Change one setting",
		account.ScopeSettingsWrite, http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity)
	o.Description += " Answers the setting as stored: a language tag comes back in canonical form (pt-br becomes pt-BR). An unknown key gives 422 under `key`; a bad value gives 422 under `value`."
	huma.Register(s.api, o, s.putSetting)
}

func (s *Server) listSettings(ctx context.Context, _ *struct{}) (*struct{ Body Data[[]Setting] }, error) {
	list, err := s.opts.Store.Settings(ctx, current(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	out := make([]Setting, len(list))
	for i, st := range list {
		out[i] = Setting{Key: st.Key, Value: st.Value}
	}
	return one(out), nil
}

func (s *Server) putSetting(ctx context.Context, in *putSettingInput) (*struct{ Body Data[Setting] }, error) {
	st := store.Setting{Key: in.Key, Value: in.Body.Value}
	userID := current(ctx).User.ID
	if err := s.opts.Store.PutSetting(ctx, userID, &st); err != nil {
		return nil, err
	}
	if s.opts.Analyser != nil {
		switch st.Key {
		case store.SettingTimezone: // days are cut elsewhere now
			if err := s.opts.Analyser.Redetect(ctx, userID); err != nil {
				logger(ctx).Error("detect after timezone change", "error", err)
			}
		case store.SettingAppLocale:
			s.opts.Analyser.Redescribe(userID)
		}
	}
	return one(Setting{Key: st.Key, Value: st.Value}), nil
}

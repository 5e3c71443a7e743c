package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/recur-journal/recur/account"
	"github.com/recur-journal/recur/store"
)

// User is the signed-in person, as GET /users/me shows them.
type User struct {
	ID              string     `json:"id" format:"uuid"`
	Name            string     `json:"name"`
	Email           string     `json:"email" format:"email"`
	EmailVerifiedAt *Timestamp `json:"email_verified_at" nullable:"true" doc:"When the address was proven, by a mailed link or code; null until then."`
	HasPassword     bool       `json:"has_password" doc:"False for accounts that sign in by mail only."`
	CreatedAt       Timestamp  `json:"created_at"`
	UpdatedAt       Timestamp  `json:"updated_at"`
}

func newUser(u *store.User) User {
	return User{
		ID: u.ID, Name: u.Name, Email: u.Email, EmailVerifiedAt: stamp(u.EmailVerifiedAt),
		HasPassword: u.PasswordHash != "", CreatedAt: Timestamp(u.CreatedAt), UpdatedAt: Timestamp(u.UpdatedAt),
	}
}

func (s *Server) registerUsers() {
	huma.Register(s.api, op(http.MethodGet, "/users/me", "get-current-user", "Account", "Show the signed-in user",
		account.ScopeProfileRead, http.StatusUnauthorized, http.StatusForbidden), s.getCurrentUser)
}

func (s *Server) getCurrentUser(ctx context.Context, _ *struct{}) (*struct{ Body Data[User] }, error) {
	return one(newUser(current(ctx).User)), nil
}

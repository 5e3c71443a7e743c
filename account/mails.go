package account

import (
	"context"
	"fmt"
	"html"

	"github.com/recur-journal/recur/internal/i18n"
	"github.com/recur-journal/recur/mail"
	"github.com/recur-journal/recur/store"
)

// locale is the language of the user's app_locale, which their mails
// speak; English when it cannot be read.
func (a *Accounts) locale(ctx context.Context, userID string) *i18n.Locale {
	tag, err := a.opts.Store.SettingValue(ctx, userID, store.SettingAppLocale)
	if err != nil {
		tag = i18n.Default
	}
	return i18n.For(tag)
}

// codeMail is a mail carrying a code to type in; intro is the sentence
// before the code, saying what it is for.
func codeMail(loc *i18n.Locale, to, subject, intro, code string) mail.Message {
	works := loc.T("It works once, for 10 minutes. If you did not ask for it, ignore this mail: nobody can use it without this mailbox.")
	return mail.Message{
		To:      to,
		Subject: subject,
		Text:    fmt.Sprintf("%s\n\n    %s\n\n%s\n\nRecur", intro, code, works),
		HTML: fmt.Sprintf(`<p>%s</p><p style="font-size:28px;font-family:monospace;letter-spacing:4px"><strong>%s</strong></p>`+
			`<p>%s</p><p>Recur</p>`,
			html.EscapeString(intro), html.EscapeString(code), html.EscapeString(works)),
		Code: code,
	}
}

// linkMail is a mail carrying a link to open; open says what it does, and
// works how long it works.
func linkMail(to, subject, open, link, works string) mail.Message {
	return mail.Message{
		To:      to,
		Subject: subject,
		Text:    fmt.Sprintf("%s:\n\n%s\n\n%s\n\nRecur", open, link, works),
		HTML: fmt.Sprintf(`<p><a href="%s">%s</a>.</p><p>%s</p><p>Recur</p>`,
			html.EscapeString(link), html.EscapeString(open), html.EscapeString(works)),
		Link: link,
	}
}

package account

import (
	"fmt"
	"html"

	"github.com/recur-journal/recur/mail"
)

// codeMail is a mail carrying a code to type in.
func codeMail(to, subject, purpose, code string) mail.Message {
	return mail.Message{
		To:      to,
		Subject: subject,
		Text: fmt.Sprintf("Your code to %s is:\n\n    %s\n\nIt works once, for 10 minutes. If you did not ask for it, ignore this mail: nobody can use it without this mailbox.\n\nRecur",
			purpose, code),
		HTML: fmt.Sprintf(`<p>Your code to %s is:</p><p style="font-size:28px;font-family:monospace;letter-spacing:4px"><strong>%s</strong></p>`+
			`<p>It works once, for 10 minutes. If you did not ask for it, ignore this mail: nobody can use it without this mailbox.</p><p>Recur</p>`,
			html.EscapeString(purpose), html.EscapeString(code)),
		Code: code,
	}
}

// linkMail is a mail carrying a link to open.
func linkMail(to, subject, action, link, lifetime string) mail.Message {
	return mail.Message{
		To:      to,
		Subject: subject,
		Text: fmt.Sprintf("Open this link to %s:\n\n%s\n\nIt works for %s. If you did not ask for it, ignore this mail.\n\nRecur",
			action, link, lifetime),
		HTML: fmt.Sprintf(`<p><a href="%s">Open this link to %s</a>.</p><p>It works for %s. If you did not ask for it, ignore this mail.</p><p>Recur</p>`,
			html.EscapeString(link), html.EscapeString(action), html.EscapeString(lifetime)),
		Link: link,
	}
}

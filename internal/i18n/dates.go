package i18n

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// dateFile is a catalogue's [date] table: x/text formats no dates, so each
// language names its months and weekdays and writes its own patterns.
type dateFile struct {
	Months        []string `toml:"months"`         // January first
	MonthsShort   []string `toml:"months_short"`   // Jan
	Weekdays      []string `toml:"weekdays"`       // Sunday first, as time.Weekday counts
	WeekdaysShort []string `toml:"weekdays_short"` // Sun
	WeekdaysMin   []string `toml:"weekdays_min"`   // Su: a calendar's column heads
	FirstWeekday  string   `toml:"first_weekday"`  // where no region says otherwise
	// Patterns maps a DateForm to its pattern, in which {weekday}, {wd},
	// {day}, {month}, {mon}, {year} and {time} (24-hour hh:mm) stand for
	// the parts.
	Patterns map[string]string `toml:"patterns"`
}

// DateForm names a way of writing a date.
type DateForm string

// The date forms every catalogue writes.
const (
	WeekdayDayMonth     DateForm = "weekday_day_month"      // Monday, 2 January
	WeekdayDayMonthYear DateForm = "weekday_day_month_year" // Monday, 2 January 2026
	WeekdayDateTime     DateForm = "weekday_date_time"      // Monday, 2 January 2026, 15:04
	ShortDateTime       DateForm = "short_date_time"        // Mon 2 Jan 2026, 15:04
	DateTime            DateForm = "date_time"              // 2 January 2026, 15:04
	DayMonthYear        DateForm = "day_month_year"         // 2 January 2026
	MonthYear           DateForm = "month_year"             // January 2026
)

// DateForms lists every form, for the catalogue's tests.
var DateForms = []DateForm{WeekdayDayMonth, WeekdayDayMonthYear, WeekdayDateTime, ShortDateTime, DateTime, DayMonthYear, MonthYear}

type dateTable struct {
	dateFile
	first time.Weekday
}

func newDateTable(f *dateFile) (*dateTable, error) {
	if len(f.Months) != 12 || len(f.MonthsShort) != 12 {
		return nil, fmt.Errorf("date: months and months_short need 12 names each")
	}
	if len(f.Weekdays) != 7 || len(f.WeekdaysShort) != 7 || len(f.WeekdaysMin) != 7 {
		return nil, fmt.Errorf("date: weekdays, weekdays_short and weekdays_min need 7 names each")
	}
	d := &dateTable{dateFile: *f}
	switch f.FirstWeekday {
	case "monday":
		d.first = time.Monday
	case "sunday":
		d.first = time.Sunday
	default:
		return nil, fmt.Errorf("date: first_weekday is monday or sunday, not %q", f.FirstWeekday)
	}
	for _, form := range DateForms {
		if f.Patterns[string(form)] == "" {
			return nil, fmt.Errorf("date: no pattern for %s", form)
		}
	}
	return d, nil
}

// Date writes t (already in the reader's zone) in form.
func (l *Locale) Date(t time.Time, form DateForm) string {
	d := l.dates
	r := strings.NewReplacer(
		"{weekday}", d.Weekdays[t.Weekday()], "{wd}", d.WeekdaysShort[t.Weekday()],
		"{day}", strconv.Itoa(t.Day()), "{month}", d.Months[t.Month()-1], "{mon}", d.MonthsShort[t.Month()-1],
		"{year}", strconv.Itoa(t.Year()), "{time}", t.Format("15:04"))
	// A date stands at the start of its heading or sentence: "Lunes, 2 de
	// marzo", "Lundi 2 mars".
	return l.maybePseudo(upperFirst(r.Replace(d.Patterns[string(form)])))
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// Month names a month: January.
func (l *Locale) Month(m time.Month) string { return l.maybePseudo(l.dates.Months[m-1]) }

// MonthShort names a month in short: Jan.
func (l *Locale) MonthShort(m time.Month) string { return l.maybePseudo(l.dates.MonthsShort[m-1]) }

// Weekday names a day of the week: Monday.
func (l *Locale) Weekday(d time.Weekday) string { return l.maybePseudo(l.dates.Weekdays[d]) }

// WeekdayMin is a day of the week's shortest name, for a calendar's column
// heads: Mo.
func (l *Locale) WeekdayMin(d time.Weekday) string { return l.maybePseudo(l.dates.WeekdaysMin[d]) }

// FirstWeekday is the day a week starts on where the locale is spoken.
func (l *Locale) FirstWeekday() time.Weekday { return l.first }

// Week lists the days of the week from the first.
func (l *Locale) Week() []time.Weekday {
	out := make([]time.Weekday, 7)
	for i := range out {
		out[i] = (l.first + time.Weekday(i)) % 7
	}
	return out
}

// WeekStart is the first day of the week that holds day, at day's clock.
func (l *Locale) WeekStart(day time.Time) time.Time {
	return day.AddDate(0, 0, -int(day.Weekday()-l.first+7)%7)
}

func (l *Locale) maybePseudo(s string) string {
	if l.pseudo {
		return pseudoText(s)
	}
	return s
}

// Package importer reads the exports of other journal apps into entries
// that Recur can store as captures. It reads bytes and file systems only:
// no database, no network.
//
// # What can be imported
//
// One upload is one file (see [Read]) or one folder (see [ReadFS]):
//
//   - Day One: the JSON export, either the .zip Day One makes (one JSON
//     file per journal at its top, beside photos/, videos/, audios/ and
//     pdfs/) or a journal's JSON file on its own (Journal.json). Every
//     journal in the zip is read. An entry's time is its "creationDate",
//     which Day One writes in UTC (2023-01-05T18:23:11Z); its "timeZone"
//     is not needed. Its "text" is cleaned: photo, video, audio and PDF
//     references (![](dayone-moment://…), ![](dayone-moment:/video/…)) are
//     removed, and the backslashes Day One puts before punctuation are
//     dropped ("Done\." becomes "Done."). Tags, stars, places, weather and
//     the attachments themselves are not imported. An entry whose text is
//     empty once cleaned (a photo alone) is skipped.
//   - jrnl: the output of `jrnl --export json`. An entry's "date"
//     (2024-01-05) and "time" (08:30) are read as local time in the user's
//     time zone; an entry without a time is put at noon. jrnl splits every
//     entry into a title (its first line, or else its first sentence) and
//     a body; they are joined again the way they were split: with a line
//     break, a space after a sentence, or nothing after a CJK full stop.
//   - Markdown: .md, .markdown and .txt files, one file per entry, as one
//     file, or as a .zip or folder of them (an Obsidian vault, a folder of
//     daily notes). How a file is dated is told below. A front matter
//     "title:" becomes the first line of the text, as a Markdown heading
//     ("# Title"), unless the text already starts with it.
//   - Recur: the JSON document `recur export` writes (its top-level
//     "format" is "recur-export"), on its own or as the one JSON file of a
//     zip. It is handed over untouched, to be restored as a whole; the
//     restore reads it from the upload itself, never held in memory whole
//     (see Result.OpenRecur).
//
// The kind of a file is told by its content, not its name: a zip, a JSON
// object (Day One, jrnl or Recur, by its keys), or else, when the name
// ends in .md, .markdown or .txt, Markdown text. Anything else is refused.
//
// In a zip or folder, the Day One journal files are read when there are
// any, else a Recur export, else jrnl exports, else every Markdown file.
// Hidden files and folders (".obsidian", ".DS_Store", counted once per
// folder), "__MACOSX", links, and files of any other kind (photos, videos,
// PDFs, JSON that is no journal, Markdown beside a Day One or jrnl export)
// are left out without being read and counted as skipped.
//
// # Dates of Markdown files
//
// A Markdown file is dated by the first of these that it has:
//
//  1. A "date:" line in front matter: a block between "---" lines at the
//     very top of the file. The date may be 2024-01-05, 2024-01-05 08:30,
//     2024-01-05T08:30:15, or carry a zone: 2024-01-05T08:30:00+01:00,
//     2024-01-05 08:30:00 +0100, 2024-01-05T07:30:00Z. Quotes around it
//     are fine. A date Recur cannot read is an error, not a guess.
//  2. A date in the file name: the first 2024-01-05, 2024_01_05 or
//     20240105 in it (years 1900 to 2100), with the time right after it
//     when there is one: "2024-01-05 08.30.md", "2024-01-05 08-30.md",
//     "2024-01-05T0830.md", "2024-01-05_08:30:15.md", "202401050830.md".
//  3. Folders named for the year, month and day: 2024/01/05.md,
//     2024/1/5 Friday.md or 2024/01/05/morning.md.
//  4. The nearest folder whose name holds a date: 2024-01-05/morning.md.
//
// Dates and times without a zone are local time in the user's time zone.
// A date without a time is put at 12:00 (noon), so that no time zone moves
// the entry to another day. A file with none of these is an error that
// names it; a file with no text (or only front matter) is skipped.
//
// # Long entries
//
// An entry longer than the limit (10000 characters unless set otherwise) is
// split into several entries at the same moment, each within the limit: at
// the last blank line (paragraph break) that fits, or else the last line
// break, or else right after the last sentence end (. ! ? … or a CJK full
// stop), or else the last space, or else after exactly the limit. Nothing
// but whitespace is lost at a cut. Their sources read "(part 2 of 3)".
//
// # Errors
//
// A malformed upload is refused as a whole: nothing of it is imported. The
// *Error returned names the file or entry ("Journal.json, entry 12",
// "notes/todo.md") and says what to do. These are refused: JSON that is
// not valid (the message gives the line and column), a Day One entry
// without a readable "creationDate", a jrnl entry without a readable date
// or time, a Markdown file without a date, text that is not UTF-8, a date
// before 1900, and an upload without a single entry ("No journal entries
// found in this upload."). An upload is read in pieces within limits that
// bound what it costs (see limits.go): a Markdown or text file at most
// 4 MiB, a JSON export 64 MiB and each of its entries 4 MiB, a zip's list of
// files 8 MiB, a path 1024 bytes and 32 folders, and a zip or folder at
// most 100000 files and 512 MiB once unpacked (Options.MaxBytes), giving
// at most 100000 entries and 128 MiB of text. The bytes are counted as
// they are unpacked, so an upload that claims less but holds more stops at
// the limit. Entries of a zip whose names reach outside it ("../x.md") are
// skipped.
//
// Entries come out oldest first; entries at the same moment keep the order
// of the upload (files in name order, a journal's entries in its order).
package importer

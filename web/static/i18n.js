// The scripts' sentences in the reader's language. The server puts the
// catalogue's translations of the keys the scripts use on <html
// data-messages> (web/scripts.go); a key it lacks is said in English.

const root = document.documentElement;
const messages = JSON.parse(root.dataset.messages || "{}");
const plurals = new Intl.PluralRules(root.lang || "en");

// t says key with args put in for its %s and %d (or %[2]d) in turn; a key
// with plural forms picks the form for its first argument, a count.
export function t(key, ...args) {
  let msg = messages[key] ?? key;
  if (typeof msg === "object") msg = msg[plurals.select(args[0])] ?? msg.other;
  let next = 0;
  return msg.replace(/%(?:\[(\d+)\])?[sd]/g, (_, n) => String(args[n ? Number(n) - 1 : next++]));
}

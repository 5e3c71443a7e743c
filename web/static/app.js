// The sign-in page: asks the API who is signed in, mails a sign-in link,
// signs out. Served as a file so the page needs no inline script.
const show = (id) => { for (const s of ["signed-out", "signed-in"]) document.getElementById(s).hidden = s !== id; };
async function load() {
  const res = await fetch("/api/users/me", { headers: { Accept: "application/json" } });
  if (res.ok) {
    const { data } = await res.json();
    document.getElementById("who").textContent = data.name ? `${data.name} (${data.email})` : data.email;
    show("signed-in");
  } else {
    show("signed-out");
  }
}
document.getElementById("mail-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const note = document.getElementById("mail-note");
  const res = await fetch("/api/magic-links/mails", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ email: document.getElementById("email").value }),
  });
  note.classList.toggle("error", !res.ok);
  if (res.ok) {
    note.textContent = "If that address has an account, a sign-in link is on its way. It works for 15 minutes.";
  } else {
    const body = await res.json().catch(() => ({}));
    note.textContent = body.message || "Something went wrong; try again.";
  }
});
document.getElementById("sign-out").addEventListener("click", async () => {
  await fetch("/api/logout", { method: "POST", headers: { Accept: "application/json" } });
  load();
});
load();

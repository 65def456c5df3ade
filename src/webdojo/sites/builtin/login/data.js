// Ledgerline account portal: fixed demo accounts, seeded into localStorage on first visit.
var LOGIN_TODAY = "2026-03-10";
var LOGIN_CLOCK = "09:00"; // the portal's fixed clock: today's events are stamped 09:00, 09:01, ...

var SEED_USERS = {
  mchen: { username: "mchen", displayName: "Maria Chen", email: "maria.chen@ledgerline.example", password: "Harbor#2024",
    accountId: "LL-40217", role: "Administrator", plan: "Business Pro", memberSince: "2021-06-14", passwordChanged: "2025-11-02",
    seatsUsed: 14, seatsTotal: 25, nextInvoiceDate: "2026-04-01", nextInvoiceAmount: 480.0 },
  apatel: { username: "apatel", displayName: "Arjun Patel", email: "arjun.patel@ledgerline.example", password: "Monsoon!88",
    accountId: "LL-51893", role: "Analyst", plan: "Team", memberSince: "2023-01-09", passwordChanged: "2025-08-19",
    seatsUsed: 6, seatsTotal: 10, nextInvoiceDate: "2026-03-28", nextInvoiceAmount: 120.0 },
  rkowalski: { username: "rkowalski", displayName: "Rita Kowalski", email: "rita.kowalski@ledgerline.example", password: "Kestrel$31",
    accountId: "LL-38802", role: "Owner", plan: "Enterprise", memberSince: "2019-10-03", passwordChanged: "2026-01-15",
    seatsUsed: 212, seatsTotal: 250, nextInvoiceDate: "2026-04-15", nextInvoiceAmount: 9850.0 }
};

var SEED_SETTINGS = {
  mchen: { notifications: { security: true, product: true, newsletter: true, billing: true, sms: false }, phone: "",
    timezone: "Europe/London", language: "en-GB", dateFormat: "YYYY-MM-DD" },
  apatel: { notifications: { security: true, product: true, newsletter: true, billing: false, sms: false }, phone: "",
    timezone: "Asia/Kolkata", language: "en-US", dateFormat: "MM/DD/YYYY" },
  rkowalski: { notifications: { security: true, product: false, newsletter: false, billing: true, sms: true }, phone: "+48 601 555 210",
    timezone: "Europe/Warsaw", language: "pl-PL", dateFormat: "DD/MM/YYYY" }
};

var SEED_AUDIT = [
  { user: "mchen", event: "signin", at: "2026-03-02 08:12", detail: "Firefox on Windows, London, GB" },
  { user: "rkowalski", event: "signin", at: "2026-03-04 07:55", detail: "Edge on Windows, Warsaw, PL" },
  { user: "apatel", event: "signin", at: "2026-03-05 10:31", detail: "Chrome on Windows, Pune, IN" },
  { user: "mchen", event: "preferences_updated", at: "2026-03-06 17:03", detail: "Time zone set to Europe/London" },
  { user: "rkowalski", event: "signin_failed", at: "2026-03-07 22:10", detail: "Unknown browser, Gdansk, PL" },
  { user: "apatel", event: "signin", at: "2026-03-08 09:47", detail: "Safari on iPhone, Mumbai, IN" },
  { user: "mchen", event: "signin", at: "2026-03-08 18:42", detail: "Chrome on macOS, Lisbon, PT" },
  { user: "rkowalski", event: "signin", at: "2026-03-09 08:03", detail: "Edge on Windows, Warsaw, PL" }
];

var TIMEZONES = [
  ["America/Los_Angeles", "(UTC-08:00) Pacific Time - Los Angeles"],
  ["America/New_York", "(UTC-05:00) Eastern Time - New York"],
  ["America/Sao_Paulo", "(UTC-03:00) Sao Paulo"],
  ["Europe/London", "(UTC+00:00) London"],
  ["Europe/Berlin", "(UTC+01:00) Berlin"],
  ["Europe/Warsaw", "(UTC+01:00) Warsaw"],
  ["Asia/Kolkata", "(UTC+05:30) Kolkata"],
  ["Asia/Tokyo", "(UTC+09:00) Tokyo"],
  ["Australia/Sydney", "(UTC+10:00) Sydney"]
];

var LANGUAGES = [
  ["en-GB", "English (UK)"], ["en-US", "English (US)"], ["de-DE", "Deutsch"], ["es-ES", "Espanol"],
  ["fr-FR", "Francais"], ["pl-PL", "Polski"], ["ja-JP", "Japanese"]
];

var DATE_FORMATS = [["YYYY-MM-DD", "datefmt-iso", "2026-03-10"], ["DD/MM/YYYY", "datefmt-dmy", "10/03/2026"], ["MM/DD/YYYY", "datefmt-mdy", "03/10/2026"]];

var EVENT_NAMES = {
  signin: "Signed in", signout: "Signed out", signin_failed: "Failed sign-in attempt", profile_updated: "Profile updated",
  notifications_updated: "Notification settings updated", preferences_updated: "Preferences updated", password_changed: "Password changed"
};

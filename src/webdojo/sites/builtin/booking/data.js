// Tidewater Stays: fixed destinations, hotels and rooms. The same for every episode.
var BOOKING_TODAY = "2026-03-10"; // calendar "today": earlier days cannot be chosen
var BOOKING_LAST_DAY = "2026-12-31"; // the calendar stops here
var BREAKFAST_PRICE = 18; // per guest per night, where breakfast is not already included

var DESTINATIONS = [
  { id: "lisbon", name: "Lisbon, Portugal" },
  { id: "kyoto", name: "Kyoto, Japan" },
  { id: "reykjavik", name: "Reykjavik, Iceland" },
  { id: "capetown", name: "Cape Town, South Africa" },
  { id: "vancouver", name: "Vancouver, Canada" }
];

var AMENITIES = { pool: "Pool", breakfast: "Breakfast included", spa: "Spa", gym: "Gym", parking: "Free parking", wifi: "Free Wi-Fi" };

// Room rates: "rate" for Sunday-Thursday nights, "weekend" for Friday and Saturday nights.
// soldOut lists the nights (check-in dates of a night) on which a room cannot be booked.
var HOTELS = [
  { id: "casa-azul", dest: "lisbon", name: "Casa Azul Guesthouse", stars: 3, score: 8.7, reviews: 412, freeCancel: true,
    amenities: ["breakfast", "wifi"], area: "Graca", checkin: "14:00", checkout: "11:00",
    blurb: "A tiled townhouse with six bright rooms and a rooftop breakfast terrace above the old town.",
    rooms: [
      { id: "std-double", name: "Standard Double", sleeps: 2, bed: "1 double bed", rate: 92, weekend: 118 },
      { id: "twin", name: "Twin Room", sleeps: 2, bed: "2 single beds", rate: 88, weekend: 112 },
      { id: "family", name: "Family Suite", sleeps: 4, bed: "1 double bed and 2 singles", rate: 165, weekend: 199 }
    ], soldOut: { twin: ["2026-03-20", "2026-03-21"] } },
  { id: "tagus-grand", dest: "lisbon", name: "Tagus Grand Hotel", stars: 5, score: 9.1, reviews: 1288, freeCancel: false,
    amenities: ["pool", "spa", "gym", "breakfast", "wifi"], area: "Baixa", checkin: "15:00", checkout: "12:00",
    blurb: "A grand riverside hotel with a heated rooftop pool and a marble spa.",
    rooms: [
      { id: "deluxe-king", name: "Deluxe King", sleeps: 2, bed: "1 king bed", rate: 240, weekend: 290 },
      { id: "river-suite", name: "River View Suite", sleeps: 3, bed: "1 king bed and a sofa bed", rate: 410, weekend: 480 }
    ], soldOut: {} },
  { id: "alfama-loft", dest: "lisbon", name: "Alfama Loft Rooms", stars: 4, score: 8.9, reviews: 530, freeCancel: true,
    amenities: ["pool", "wifi"], area: "Alfama", checkin: "15:00", checkout: "11:00",
    blurb: "Converted warehouse lofts around a courtyard plunge pool, a short walk from the castle.",
    rooms: [
      { id: "loft-studio", name: "Loft Studio", sleeps: 2, bed: "1 queen bed", rate: 135, weekend: 160 },
      { id: "loft-apartment", name: "Two-Bedroom Loft", sleeps: 5, bed: "2 queen beds and a sofa bed", rate: 220, weekend: 260 }
    ], soldOut: {} },
  { id: "hanami-inn", dest: "kyoto", name: "Hanami Ryokan Inn", stars: 4, score: 9.3, reviews: 764, freeCancel: true,
    amenities: ["breakfast", "spa", "wifi"], area: "Higashiyama", checkin: "15:00", checkout: "10:00",
    blurb: "A traditional inn with tatami rooms, a moss garden and a cedar hot-spring bath.",
    rooms: [
      { id: "garden-twin", name: "Garden Twin", sleeps: 2, bed: "2 futons", rate: 145, weekend: 175 },
      { id: "tatami-family", name: "Tatami Family Room", sleeps: 4, bed: "4 futons", rate: 230, weekend: 270 },
      { id: "cedar-suite", name: "Cedar Suite with Private Bath", sleeps: 2, bed: "2 futons", rate: 320, weekend: 360 }
    ], soldOut: { "garden-twin": ["2026-03-21", "2026-03-22"] } },
  { id: "gion-central", dest: "kyoto", name: "Gion Central Hotel", stars: 3, score: 8.2, reviews: 2103, freeCancel: false,
    amenities: ["gym", "wifi"], area: "Gion", checkin: "15:00", checkout: "11:00",
    blurb: "A compact, modern hotel on a lantern-lit street, two minutes from the station.",
    rooms: [
      { id: "compact-double", name: "Compact Double", sleeps: 2, bed: "1 double bed", rate: 98, weekend: 124 },
      { id: "superior-twin", name: "Superior Twin", sleeps: 2, bed: "2 single beds", rate: 126, weekend: 150 }
    ], soldOut: { "compact-double": ["2026-03-18"] } },
  { id: "kamo-river", dest: "kyoto", name: "Kamo River Hotel", stars: 5, score: 9.0, reviews: 889, freeCancel: true,
    amenities: ["pool", "spa", "breakfast", "wifi"], area: "Kawaramachi", checkin: "15:00", checkout: "12:00",
    blurb: "Quiet luxury on the riverbank, with an indoor pool and a kaiseki restaurant.",
    rooms: [
      { id: "river-king", name: "River King", sleeps: 2, bed: "1 king bed", rate: 290, weekend: 340 },
      { id: "kamo-suite", name: "Kamo Suite", sleeps: 4, bed: "1 king bed and 2 singles", rate: 520, weekend: 600 }
    ], soldOut: {} },
  { id: "northern-lights", dest: "reykjavik", name: "Northern Lights Lodge", stars: 3, score: 8.5, reviews: 655, freeCancel: true,
    amenities: ["breakfast", "parking", "wifi"], area: "Hlidar", checkin: "15:00", checkout: "11:00",
    blurb: "A timber lodge on the edge of town with a glass-roofed lounge for watching the sky.",
    rooms: [
      { id: "cosy-single", name: "Cosy Single", sleeps: 1, bed: "1 single bed", rate: 110, weekend: 130 },
      { id: "cosy-double", name: "Cosy Double", sleeps: 2, bed: "1 double bed", rate: 150, weekend: 175 },
      { id: "loft-quad", name: "Loft Quad", sleeps: 4, bed: "2 double beds", rate: 240, weekend: 280 }
    ], soldOut: { "cosy-single": ["2026-03-14", "2026-03-15"] } },
  { id: "harpa-view", dest: "reykjavik", name: "Harpa View Hotel", stars: 4, score: 8.8, reviews: 978, freeCancel: false,
    amenities: ["spa", "gym", "wifi"], area: "Harbour", checkin: "14:00", checkout: "12:00",
    blurb: "Floor-to-ceiling windows over the harbour and the concert hall, with a geothermal spa.",
    rooms: [
      { id: "city-double", name: "City Double", sleeps: 2, bed: "1 queen bed", rate: 175, weekend: 210 },
      { id: "harbour-suite", name: "Harbour Suite", sleeps: 3, bed: "1 king bed and a sofa bed", rate: 330, weekend: 380 }
    ], soldOut: {} },
  { id: "table-mountain", dest: "capetown", name: "Table Mountain Suites", stars: 4, score: 9.0, reviews: 721, freeCancel: true,
    amenities: ["pool", "breakfast", "parking", "wifi"], area: "Gardens", checkin: "14:00", checkout: "10:00",
    blurb: "Airy suites on the mountain's lower slopes, with a saltwater pool and garden breakfasts.",
    rooms: [
      { id: "mountain-king", name: "Mountain View King", sleeps: 2, bed: "1 king bed", rate: 150, weekend: 180 },
      { id: "garden-family", name: "Garden Family Suite", sleeps: 5, bed: "1 king bed and 3 singles", rate: 260, weekend: 300 },
      { id: "penthouse", name: "Penthouse Suite", sleeps: 6, bed: "2 king beds and 2 singles", rate: 480, weekend: 540 }
    ], soldOut: {} },
  { id: "camps-bay", dest: "capetown", name: "Camps Bay Beach House", stars: 5, score: 9.4, reviews: 402, freeCancel: false,
    amenities: ["pool", "spa", "breakfast", "wifi"], area: "Camps Bay", checkin: "15:00", checkout: "11:00",
    blurb: "A white-washed beach house steps from the sand, with an infinity pool facing the Atlantic.",
    rooms: [
      { id: "ocean-double", name: "Ocean Double", sleeps: 2, bed: "1 king bed", rate: 310, weekend: 370 },
      { id: "beach-villa", name: "Beach Villa", sleeps: 6, bed: "3 king beds", rate: 640, weekend: 720 }
    ], soldOut: {} },
  { id: "bo-kaap", dest: "capetown", name: "Bo-Kaap Backpackers", stars: 2, score: 7.9, reviews: 1530, freeCancel: true,
    amenities: ["wifi"], area: "Bo-Kaap", checkin: "13:00", checkout: "10:00",
    blurb: "A lively hostel in a colourful quarter, with a roof deck and a shared kitchen.",
    rooms: [
      { id: "dorm-bed", name: "Bed in 6-Bed Dorm", sleeps: 1, bed: "1 bunk bed", rate: 28, weekend: 34 },
      { id: "private-double", name: "Private Double", sleeps: 2, bed: "1 double bed", rate: 64, weekend: 78 }
    ], soldOut: {} },
  { id: "harbour-light", dest: "vancouver", name: "Harbour Light Hotel", stars: 4, score: 8.6, reviews: 1104, freeCancel: true,
    amenities: ["gym", "parking", "wifi"], area: "Coal Harbour", checkin: "16:00", checkout: "11:00",
    blurb: "A glassy tower on the seawall with mountain views from every room.",
    rooms: [
      { id: "queen", name: "Queen Room", sleeps: 2, bed: "1 queen bed", rate: 189, weekend: 229 },
      { id: "two-queen", name: "Two Queen Room", sleeps: 4, bed: "2 queen beds", rate: 229, weekend: 269 }
    ], soldOut: {} },
  { id: "stanley-park", dest: "vancouver", name: "Stanley Park Inn", stars: 3, score: 8.4, reviews: 690, freeCancel: false,
    amenities: ["breakfast", "parking", "wifi"], area: "West End", checkin: "15:00", checkout: "11:00",
    blurb: "A friendly brick inn by the park gates, with bikes to borrow.",
    rooms: [
      { id: "park-double", name: "Park Double", sleeps: 2, bed: "1 double bed", rate: 149, weekend: 179 },
      { id: "park-suite", name: "Park Suite", sleeps: 4, bed: "1 queen bed and a sofa bed", rate: 259, weekend: 299 }
    ], soldOut: {} }
];

// A reservation that already exists when the site is first opened (seeded into booking.reservations).
var SEED_RESERVATIONS = [
  { code: "TW-7Q4K2M", status: "confirmed", hotel: "harbour-light", hotelName: "Harbour Light Hotel", dest: "vancouver",
    room: "queen", roomName: "Queen Room", checkin: "2026-04-16", checkout: "2026-04-19", nights: 3, adults: 2, children: 0,
    breakfast: false, arrival: "18:00-21:00", guest: { first: "Jordan", last: "Lee", email: "jordan.lee@example.com", phone: "+1 604 555 0142" },
    requests: "High floor if possible", roomTotal: 647, breakfastTotal: 0, total: 647, bookedOn: "2026-02-21" }
];

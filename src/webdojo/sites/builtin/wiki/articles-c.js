/* The Veshari Compendium: article data (part C). See articles-a.js for the markup. */

WIKI_ARTICLES.push({
  id: "tessel",
  title: "Tessel",
  category: "Institutions",
  image: "coin",
  aliases: ["currency", "money", "coins", "banknotes", "pip", "pips", "concord mint"],
  summary: "The currency of the Veshari Concord since 1035 AR; one tessel is divided into 24 pips.",
  infobox: {
    caption: "Obverse of the 1-tessel coin",
    rows: [
      ["Introduced", "1035 AR"],
      ["Subunit", "1 tessel = 24 pips"],
      ["Issuer", "Concord Mint, [[port-casimir|Port Casimir]]"],
      ["Coins", "1, 3, 6, 12 pips; 1, 5 tessels"],
      ["Banknotes", "10, 20, 50, 100 tessels"],
      ["Symbol", "₮"]
    ]
  },
  lead: [
    "The **tessel** (symbol ₮) is the currency of the [[veshari-concord|Veshari Concord]]. It was introduced in 1035 AR under Article 15 of the [[treaty-of-lowmere|Treaty of Lowmere]], replacing the seven separate coinages of the island councils. One tessel is divided into 24 pips.",
    "All coins are struck at the Concord Mint in the Glassmarket district of [[port-casimir|Port Casimir]]. Banknotes were first issued in 1040 AR and carry portraits of figures from Veshari history."
  ],
  sections: [
    { id: "history", title: "History", body: [
      "Before the Concord each island minted its own coins, and the salt trade was complicated by constant exchange between them. The treaty of 1032 AR required a single coinage struck at a single mint. The first tessels were struck in 1035 AR from Greythorn silver, and the old island coins ceased to be legal tender in 1038 AR.",
      "The name comes from the small square glass counters, or tessels, that Port Casimir merchants used for reckoning accounts. The division into 24 pips was chosen because it could be evenly halved, thirded and quartered, which suited the salt trade's traditional measures."
    ] },
    { id: "coins", title: "Coins", body: [
      { table: {
        caption: "Coins in circulation",
        head: ["Value", "Metal", "Reverse design"],
        rows: [
          ["1 pip", "Copper", "A herring"],
          ["3 pips", "Copper", "A salt rake"],
          ["6 pips", "Brass", "An anvil"],
          ["12 pips (half-tessel)", "Silver", "A wool bale"],
          ["1 tessel", "Silver", "The [[skarn-glasswing|Skarn glasswing]]"],
          ["5 tessels", "Silver and brass", "The [[glass-bridge|Glass Bridge]]"]
        ]
      } }
    ] },
    { id: "banknotes", title: "Banknotes", body: [
      "The four banknotes each carry the portrait of a person honoured for their service to the islands. The 50-tessel note was added in 1152 AR, three years after the death of the person it depicts.",
      { table: {
        caption: "Banknotes of the current series",
        head: ["Value", "Colour", "Portrait", "In issue since"],
        rows: [
          ["10 tessels", "Green", "[[odile-fenwarren|Odile Fenwarren]], founder of the Lantern Guild", "1040 AR"],
          ["20 tessels", "Blue", "[[brannock-dael|Brannock Dael]], first First Steward", "1040 AR"],
          ["50 tessels", "Amber", "[[mirela-oskavy|Mirela Oskavy]], explorer", "1152 AR"],
          ["100 tessels", "Violet", "Admiral Teodric Vane, founder of [[port-casimir|Port Casimir]]", "1040 AR"]
        ]
      } },
      "Each note has a watermark of the portrait and a strip of Ember Isle glass thread, which glows green under a lamp."
    ] },
    { id: "value", title: "Value and prices", body: [
      "The tessel has been remarkably stable. A loaf of bread in Port Casimir cost 2 pips in 1100 AR and costs 5 pips today. The price of a tonne of Saltreach salt, set daily at the Tidewater Exchange, averaged 38 tessels in 1183 AR.",
      { table: {
        caption: "Typical prices in Port Casimir, 1184 AR",
        head: ["Item", "Price"],
        rows: [["Loaf of bread", "5 pips"], ["Tram ride across the Glass Bridge", "3 pips"], ["Ferry to Saltmouth", "4 tessels"], ["Month's rent, two rooms in Vane's Reach", "310 tessels"]]
      } }
    ] }
  ],
  seeAlso: ["treaty-of-lowmere", "veshari-concord", "port-casimir"]
});

WIKI_ARTICLES.push({
  id: "veshari-concord",
  title: "Veshari Concord",
  category: "Institutions",
  image: "hall",
  aliases: ["concord", "government", "moot of tides", "moot", "parliament", "first steward"],
  summary: "The union of the seven islands founded in 1032 AR, with its parliament, the Moot of Tides.",
  infobox: {
    caption: "The Tide Hall, seat of the Moot",
    rows: [
      ["Founded", "1032 AR by the [[treaty-of-lowmere|Treaty of Lowmere]]"],
      ["Capital", "[[port-casimir|Port Casimir]]"],
      ["Parliament", "Moot of Tides (91 seats)"],
      ["Head of government", "First Steward"],
      ["First Steward", "Halvard Quince (since 1179 AR)"],
      ["Currency", "[[tessel|Tessel]]"],
      ["Emblem", "[[skarn-glasswing|Skarn glasswing]]"]
    ]
  },
  lead: [
    "The **Veshari Concord** is the union of the seven islands of the [[veshari-archipelago|Veshari Archipelago]]. It was founded in 1032 AR by the [[treaty-of-lowmere|Treaty of Lowmere]], which ended the [[salt-wars|Salt Wars]]. Its parliament, the **Moot of Tides**, has 91 seats and meets in the Tide Hall in [[port-casimir|Port Casimir]].",
    "The Concord is led by the **First Steward**, who is elected by the Moot for a term of six years and may be re-elected. The current First Steward, Halvard Quince, took office in 1179 AR."
  ],
  sections: [
    { id: "moot", title: "The Moot of Tides", body: [
      "Seats in the Moot are allotted to the islands roughly in proportion to their population and are revised after each census. The treaty's original 63 seats were increased to 77 in 1101 AR and to the present 91 in 1161 AR. Members are elected for six years.",
      { table: {
        caption: "Seats in the Moot of Tides by island (since 1161 AR)",
        head: ["Island", "Seats"],
        rows: [
          ["Hallowmere", "38"],
          ["Greythorn", "15"],
          ["Saltreach", "13"],
          ["Ember Isle", "8"],
          ["Orrow", "8"],
          ["Isle of Quill", "5"],
          ["Little Wend", "4"],
          ["Total", "91"]
        ]
      } },
      "The Moot sits from the first day of Rainmonth to the last day of Harvestmonth. Its presiding officer, the Speaker of Tides, is by custom chosen from one of the smaller islands."
    ] },
    { id: "first-steward", title: "The First Steward", body: [
      "The office of First Steward was created by Article 7 of the treaty. The First Steward appoints the Stewards of the Concord's six departments — Harbours, Treasury, Justice, Learning, Defence and Lights — and represents the Concord abroad.",
      { table: {
        caption: "Selected First Stewards",
        head: ["First Steward", "Home island", "In office"],
        rows: [
          ["[[brannock-dael|Brannock Dael]]", "Isle of Quill", "1032–1047 AR"],
          ["Seren Holloway", "Hallowmere", "1047–1059 AR"],
          ["Maud Kettle", "Greythorn", "1089–1101 AR"],
          ["Idris Calloway", "Saltreach", "1143–1155 AR"],
          ["Agathe Morrow", "Orrow", "1161–1173 AR"],
          ["Tobias Wrenfield", "Hallowmere", "1173–1179 AR"],
          ["Halvard Quince", "Greythorn", "1179 AR–present"]
        ]
      } },
      "Maud Kettle led the Concord through the Great Eruption of [[mount-skarn|Mount Skarn]] in 1090 AR and founded the observatory of Skarn Watch."
    ] },
    { id: "departments", title: "Departments", body: [
      "The Department of Lights funds the [[lantern-guild|Lantern Guild]] but, under Article 19 of the treaty, may not direct its work. The Department of Learning funds the [[university-of-casimir|University of Casimir]] and the schools of all seven islands. The Treasury oversees the Concord Mint, which strikes the [[tessel|tessel]]."
    ] },
    { id: "symbols", title: "Symbols", body: [
      "The emblem of the Concord, adopted in 1140 AR, is the [[skarn-glasswing|Skarn glasswing]]. The flag shows seven white lights on a sea-blue field, one for each island. Concord Day, 14 Harvestmonth, marks the signing of the treaty."
    ] }
  ],
  seeAlso: ["treaty-of-lowmere", "brannock-dael", "port-casimir"]
});

WIKI_ARTICLES.push({
  id: "reckoning-calendar",
  title: "Reckoning calendar",
  category: "Culture",
  image: "calendar",
  aliases: ["calendar", "AR", "after reckoning", "months", "lantern day", "year"],
  summary: "The calendar of the islands: 13 months of 28 days plus Lantern Day, counted from the landing of the first settlers.",
  infobox: {
    caption: "A Quill almanac page",
    rows: [
      ["Epoch", "Landing of the first settlers (year 0)"],
      ["Era", "AR (After Reckoning)"],
      ["Months", "13 of 28 days"],
      ["Extra days", "Lantern Day (+ Second Lantern Day every 4th year)"],
      ["Year length", "365 or 366 days"],
      ["Current year", "1184 AR"]
    ]
  },
  lead: [
    "The **Reckoning calendar** is the calendar used throughout the [[veshari-archipelago|Veshari Archipelago]]. Years are counted from the Reckoning, the landing of the first settler fleet on the Isle of Quill, and are written with the suffix AR (“After Reckoning”). The current year is 1184 AR.",
    "The year has thirteen months of exactly 28 days, followed by one extra day, Lantern Day, which belongs to no month. Every fourth year a Second Lantern Day is added."
  ],
  sections: [
    { id: "months", title: "Months", body: [
      "Because every month has 28 days, each month begins on the same day of the week, and the same date falls on the same weekday every year.",
      { table: {
        caption: "The thirteen months",
        head: ["No.", "Month", "Season"],
        rows: [
          ["1", "Frostmonth", "Winter"], ["2", "Thawmonth", "Winter"], ["3", "Seedmonth", "Winter"],
          ["4", "Rainmonth", "Spring"], ["5", "Bloommonth", "Spring"], ["6", "Suncrest", "Spring"],
          ["7", "Highsun", "Summer"], ["8", "Emberfall", "Summer"], ["9", "Harvestmonth", "Summer"],
          ["10", "Mistmonth", "Autumn"], ["11", "Saltmonth", "Autumn"], ["12", "Darkmonth", "Autumn"],
          ["13", "Yearsend", "Autumn"]
        ]
      } },
      "The week has seven days, named after the seven islands: Hallowday, Greyday, Emberday, Saltday, Orrowday, Quillday and Wendday."
    ] },
    { id: "lantern-day", title: "Lantern Day", body: [
      "The 365th day of the year follows the 28th of Yearsend. It was an unnamed day of rest until 1050 AR, when the Moot declared it Lantern Day in honour of the [[lantern-guild|Lantern Guild]]. On Lantern Day households place a lamp in a window, and at midnight every lighthouse in the Concord flashes the guild's signal.",
      "In years divisible by four a Second Lantern Day is added, making 366 days. The rule was introduced by astronomers of the [[university-of-casimir|University of Casimir]] in 1012 AR."
    ] },
    { id: "holidays", title: "Public holidays", body: [
      { table: {
        caption: "Public holidays of the Concord",
        head: ["Date", "Holiday", "Marks"],
        rows: [
          ["1 Frostmonth", "New Year", "Start of the year"],
          ["10 Highsun", "Summit Day", "First ascent of [[mount-skarn|Mount Skarn]] (1102 AR)"],
          ["14 Harvestmonth", "Concord Day", "Signing of the [[treaty-of-lowmere|Treaty of Lowmere]]"],
          ["After 28 Yearsend", "Lantern Day", "The [[lantern-guild|Lantern Guild]]"]
        ]
      } }
    ] },
    { id: "dating", title: "Historical dating", body: [
      "Events before about 600 AR are dated from oral tradition and are uncertain. From the foundation of [[port-casimir|Port Casimir]] in 871 AR onwards, dates are taken from the harbour registers and are considered reliable."
    ] }
  ],
  seeAlso: ["lantern-guild", "veshari-archipelago"]
});

WIKI_ARTICLES.push({
  id: "university-of-casimir",
  title: "University of Casimir",
  category: "Institutions",
  image: "hall",
  aliases: ["university", "casimir university", "highcastle", "alumni"],
  summary: "The oldest university of the archipelago, founded in 958 AR in Port Casimir.",
  infobox: {
    caption: "The Old Quadrangle, Highcastle",
    rows: [
      ["Founded", "958 AR"],
      ["Location", "Highcastle, [[port-casimir|Port Casimir]]"],
      ["Students", "21,300"],
      ["Faculties", "9"],
      ["Chancellor", "Amsel Grieve"],
      ["Library", "1.4 million volumes"]
    ]
  },
  lead: [
    "The **University of Casimir** is the oldest and largest university of the [[veshari-archipelago|Veshari Archipelago]]. It was founded in 958 AR on the hill of Highcastle in [[port-casimir|Port Casimir]] and today has 21,300 students in nine faculties.",
    "The university also runs the volcano observatory of Skarn Watch on [[mount-skarn|Mount Skarn]] and the Concord's chief astronomical observatory."
  ],
  sections: [
    { id: "history", title: "History", body: [
      "The university grew out of a school for ships' navigators founded by the Hallowmere council. Its charter of 958 AR gave it three faculties — Navigation, Law and Medicine. The Faculty of Natural Philosophy followed in 1003 AR and the Faculty of Architecture in 1077 AR. Astronomers of the university devised the leap-year rule of the [[reckoning-calendar|Reckoning calendar]] in 1012 AR.",
      "Since the treaty of 1032 AR the university has been funded by the Concord's Department of Learning and admits students from every island."
    ] },
    { id: "faculties", title: "Faculties", body: [
      { table: {
        caption: "Faculties of the University of Casimir",
        head: ["Faculty", "Founded (AR)", "Students (1184 AR)"],
        rows: [
          ["Navigation", "958", "1,450"],
          ["Law", "958", "2,980"],
          ["Medicine", "958", "3,120"],
          ["Natural Philosophy", "1003", "3,640"],
          ["Letters", "1021", "2,210"],
          ["Architecture", "1077", "1,390"],
          ["Engineering", "1108", "3,060"],
          ["Commerce", "1134", "2,270"],
          ["Earth Sciences", "1170", "1,180"]
        ]
      } }
    ] },
    { id: "alumni", title: "Notable alumni", body: [
      { table: {
        caption: "Selected alumni",
        head: ["Name", "Faculty", "Graduated (AR)", "Known for"],
        rows: [
          ["[[brannock-dael|Brannock Dael]]", "Law", "1009", "Negotiator of the Treaty of Lowmere"],
          ["[[mirela-oskavy|Mirela Oskavy]]", "Natural Philosophy", "1094", "First ascent of Mount Skarn"],
          ["Corvin Aldane", "Architecture", "1098", "Designer of the [[glass-bridge|Glass Bridge]]"],
          ["Halvard Quince", "Commerce", "1151", "First Steward"]
        ]
      } }
    ] },
    { id: "library", title: "Library", body: [
      "The university library holds 1.4 million volumes, including the harbour registers of Port Casimir from 871 AR and the field notebooks of [[mirela-oskavy|Mirela Oskavy]]. Its reading room, the Long Gallery, is lit by a glass roof made in Glassmarket."
    ] }
  ],
  seeAlso: ["port-casimir", "mirela-oskavy", "brannock-dael"]
});

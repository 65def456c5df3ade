/* The Veshari Compendium: article data (part D). See articles-a.js for the markup. */

WIKI_ARTICLES.push({
  id: "mirela-oskavy",
  title: "Mirela Oskavy",
  category: "People",
  image: "person",
  aliases: ["oskavy", "mirela", "explorer", "outer shoals survey"],
  summary: "Explorer and naturalist; made the first ascent of Mount Skarn and led the Outer Shoals Survey (1071–1149 AR).",
  infobox: {
    caption: "Portrait after the 50-tessel banknote",
    rows: [
      ["Born", "Frostmonth 1071 AR, Fennick, Orrow"],
      ["Died", "1149 AR, [[port-casimir|Port Casimir]]"],
      ["Education", "[[university-of-casimir|University of Casimir]] (1094 AR)"],
      ["Known for", "First ascent of [[mount-skarn|Mount Skarn]]; Outer Shoals Survey"],
      ["Honours", "Portrait on the 50-[[tessel|tessel]] note"]
    ]
  },
  lead: [
    "**Mirela Oskavy** (1071–1149 AR) was a Veshari explorer, mountaineer and naturalist. In 1102 AR, at the age of 31, she led the first ascent of [[mount-skarn|Mount Skarn]], and from 1110 to 1114 AR she directed the Outer Shoals Survey, which charted the reefs west of the archipelago for the first time. She also gave the first scientific description of the [[skarn-glasswing|Skarn glasswing]]."
  ],
  sections: [
    { id: "early-life", title: "Early life and education", body: [
      "Oskavy was born in Frostmonth 1071 AR in Fennick, the chief town of Orrow, the daughter of a ferry captain. As a child she sailed with her father between Orrow and Hallowmere and learned to take soundings and read charts. She studied natural philosophy at the [[university-of-casimir|University of Casimir]], graduating in 1094 AR with a thesis on the birds of the Orrow cliffs."
    ] },
    { id: "skarn", title: "Mount Skarn", body: [
      "After the Great Eruption of 1090 AR the Concord wanted a survey of the summit crater, which no one had reached. Oskavy made three attempts between 1098 and 1101 AR, each turned back by gas or loose ash. In Highsun 1102 AR, with the guides Tam and Ossel Harrow and the surveyor Jory Penn, she climbed the southern ridge, bivouacked at 2,950 metres, and reached the crater rim on the morning of 10 Highsun. The day is now a public holiday, Summit Day.",
      "During the expedition she collected the first specimens of the glasswing moth, which she described in 1105 AR under the name it still bears, the [[skarn-glasswing|Skarn glasswing]]."
    ] },
    { id: "shoals", title: "The Outer Shoals Survey", body: [
      "From 1110 to 1114 AR Oskavy commanded the survey ship *Patient Heron* on a charting expedition west of the islands. The survey mapped 212 reefs and banks, many of them previously known only from wrecks, and its charts are still the basis of the pilots' maps used by the [[lantern-guild|Lantern Guild]].",
      { table: {
        caption: "Seasons of the Outer Shoals Survey",
        head: ["Season (AR)", "Area", "Reefs charted"],
        rows: [["1110", "Quill Banks", "41"], ["1111", "Orrow Deep", "38"], ["1112", "The Tangles", "67"], ["1113", "Far Shoals", "49"], ["1114", "Wend Approaches", "17"], ["Total", "—", "212"]]
      } }
    ] },
    { id: "later-life", title: "Later life", body: [
      "Oskavy taught at the University of Casimir from 1116 AR and served as the first head of its Earth Sciences collection. She never married. She died in [[port-casimir|Port Casimir]] in 1149 AR. Her field notebooks are kept in the university library, and her portrait has appeared on the 50-[[tessel|tessel]] note since 1152 AR."
    ] }
  ],
  seeAlso: ["mount-skarn", "skarn-glasswing", "university-of-casimir"]
});

WIKI_ARTICLES.push({
  id: "glass-bridge",
  title: "Glass Bridge",
  category: "Places",
  image: "bridge",
  aliases: ["bridge", "casimir channel", "aldane", "corvin aldane"],
  summary: "Iron-and-glass bridge of 1121 AR across the Casimir Channel in Port Casimir.",
  infobox: {
    caption: "The bridge at dusk, from Lampside",
    rows: [
      ["Crosses", "Casimir Channel"],
      ["Locale", "[[port-casimir|Port Casimir]]"],
      ["Designer", "Corvin Aldane"],
      ["Construction", "1114–1121 AR"],
      ["Length", "1,140 m"],
      ["Spans", "14"],
      ["Longest span", "186 m"],
      ["Cost", "2.6 million tessels"]
    ]
  },
  lead: [
    "The **Glass Bridge** is an iron bridge with glass-panelled walkways that crosses the Casimir Channel in [[port-casimir|Port Casimir]], joining the Old Harbour district on the western bank with Vane's Reach on the eastern bank. Completed in 1121 AR after seven years of work, it is 1,140 metres long and has 14 spans.",
    "The bridge was designed by the architect Corvin Aldane (1074–1139 AR), a graduate of the [[university-of-casimir|University of Casimir]]. Its glass walkways, lit from below at night, have made it the best-known image of the [[veshari-archipelago|Veshari Archipelago]]."
  ],
  sections: [
    { id: "design", title: "Design", body: [
      "Aldane won an open competition in 1112 AR with a design that replaced the heavy stone arches of earlier proposals with a light iron frame. The iron was cast by the Greythorn Foundries of [[brackenford|Brackenford]] and shipped to Port Casimir in pieces. The walkways on either side of the tram deck are paved with thick panels of Glassmarket glass, so that walkers can see the channel beneath their feet.",
      { table: {
        caption: "Principal dimensions",
        head: ["Feature", "Value"],
        rows: [["Total length", "1,140 m"], ["Number of spans", "14"], ["Longest (central) span", "186 m"], ["Clearance above high water", "34 m"], ["Glass panels", "4,812"], ["Width", "22 m"]]
      } }
    ] },
    { id: "construction", title: "Construction", body: [
      "Work began in Rainmonth 1114 AR and the bridge opened on 1 Frostmonth 1121 AR. About 1,900 workers were employed at the peak of construction, and eleven died in accidents, commemorated by a plaque at the western abutment. The final cost was 2.6 million tessels, almost twice the original estimate, which led to an inquiry by the Moot of Tides."
    ] },
    { id: "use", title: "Use", body: [
      "The bridge carries two tram lines and two footways. In 1183 AR it was crossed about 58,000 times a day. A tram ride across costs 3 pips. The 5-[[tessel|tessel]] coin shows the bridge on its reverse, and the annual rowing race across the Casimir Channel finishes beneath its central span."
    ] },
    { id: "aldane", title: "Corvin Aldane", body: [
      "Corvin Aldane was born in Port Casimir in 1074 AR and graduated from the Faculty of Architecture of the [[university-of-casimir|University of Casimir]] in 1098 AR. The Glass Bridge was his only large work; he later designed the glass roof of the university's Long Gallery. He died in 1139 AR and is buried in Highcastle."
    ] }
  ],
  seeAlso: ["port-casimir", "university-of-casimir", "tessel"]
});

WIKI_ARTICLES.push({
  id: "skarn-glasswing",
  title: "Skarn glasswing",
  category: "Nature",
  image: "moth",
  aliases: ["glasswing", "moth", "emblem", "national emblem"],
  summary: "Large clear-winged moth found only on Mount Skarn; national emblem of the Concord.",
  infobox: {
    caption: "Female Skarn glasswing at rest",
    rows: [
      ["Kind", "Moth"],
      ["Range", "[[mount-skarn|Mount Skarn]], Ember Isle, 1,800–2,900 m"],
      ["Wingspan", "11 cm (females up to 13 cm)"],
      ["Described by", "[[mirela-oskavy|Mirela Oskavy]], 1105 AR"],
      ["Population", "about 40,000 adults"],
      ["Status", "Vulnerable"],
      ["Emblem of the Concord", "since 1140 AR"]
    ]
  },
  lead: [
    "The **Skarn glasswing** is a large moth with transparent wings that lives only on the upper slopes of [[mount-skarn|Mount Skarn]] on Ember Isle. It was first described by [[mirela-oskavy|Mirela Oskavy]] in 1105 AR from specimens collected during her ascent of the mountain. Since 1140 AR it has been the emblem of the [[veshari-concord|Veshari Concord]]."
  ],
  sections: [
    { id: "description", title: "Description", body: [
      "The wings are clear except for a narrow black border and a single amber spot on each forewing, so that the moth appears almost invisible against the sky. The average wingspan is 11 centimetres; females are larger and may reach 13 centimetres. The body is covered in grey hairs that help it survive cold nights at altitude."
    ] },
    { id: "habitat", title: "Habitat and life cycle", body: [
      "Glasswings live in the belt of stunted pine and fern between 1,800 and 2,900 metres. Caterpillars feed on the leaves of the ember fern and spend two winters under the ash before pupating. Adults fly for about three weeks in Highsun and Emberfall and do not feed.",
      { table: {
        caption: "Estimated adult population (Skarn Watch counts)",
        head: ["Year (AR)", "Adults"],
        rows: [["1089", "about 95,000"], ["1092", "about 12,000"], ["1130", "about 61,000"], ["1168", "about 22,000"], ["1183", "about 40,000"]]
      } },
      "The population collapsed after the Great Eruption of 1090 AR and again after the eruption of 1167 AR, recovering slowly each time."
    ] },
    { id: "emblem", title: "As an emblem", body: [
      "The Moot of Tides adopted the glasswing as the emblem of the Concord in 1140 AR, on the proposal of members from Ember Isle. It appears on the reverse of the 1-[[tessel|tessel]] coin and on the seal of the Moot. Collecting glasswings has been forbidden since 1141 AR."
    ] },
    { id: "conservation", title: "Conservation", body: [
      "The species is classed as vulnerable because of its small range and exposure to eruptions. Skarn Watch counts adults every summer, and the ember fern has been replanted on the eastern flank where Harrowby once stood."
    ] }
  ],
  seeAlso: ["mount-skarn", "mirela-oskavy", "veshari-concord"]
});

WIKI_ARTICLES.push({
  id: "brannock-dael",
  title: "Brannock Dael",
  category: "People",
  image: "person",
  aliases: ["dael", "brannock", "chancellor", "first first steward"],
  summary: "Negotiator of the Treaty of Lowmere and first First Steward of the Concord (988–1061 AR).",
  infobox: {
    caption: "Portrait after the 20-tessel banknote",
    rows: [
      ["Born", "988 AR, Lowmere, Isle of Quill"],
      ["Died", "1061 AR, Lowmere"],
      ["Education", "[[university-of-casimir|University of Casimir]] (Law, 1009 AR)"],
      ["Office", "First Steward of the [[veshari-concord|Veshari Concord]]"],
      ["In office", "1032–1047 AR"],
      ["Honours", "Portrait on the 20-[[tessel|tessel]] note"]
    ]
  },
  lead: [
    "**Brannock Dael** (988–1061 AR) was a Veshari lawyer and statesman. As chancellor of the council of the Isle of Quill he negotiated the [[treaty-of-lowmere|Treaty of Lowmere]] (1032 AR), which ended the [[salt-wars|Salt Wars]], and he served as the first First Steward of the [[veshari-concord|Veshari Concord]] from 1032 to 1047 AR."
  ],
  sections: [
    { id: "early-life", title: "Early life", body: [
      "Dael was born in Lowmere, the chief town of the Isle of Quill, in 988 AR, the son of a wool merchant. He studied law at the [[university-of-casimir|University of Casimir]] and graduated in 1009 AR, then returned to Quill as clerk to the island council. He became its chancellor in 1020 AR, during the first years of the Salt Wars."
    ] },
    { id: "treaty", title: "The Treaty of Lowmere", body: [
      "Quill's neutrality in the wars made Dael an acceptable go-between, and from 1029 AR he carried messages between the two alliances. After the armistice of 1031 AR he hosted the peace conference at Lowmere Abbey. His insistence on a union of equals rather than a victor's peace shaped the treaty's 23 articles, and his draft of the article on the [[lantern-guild|Lantern Guild]]'s neutrality was adopted without change."
    ] },
    { id: "first-steward", title: "First Steward", body: [
      "The first Moot of Tides elected Dael First Steward in 1032 AR, and he was re-elected twice, serving fifteen years in all. His government built the Tide Hall, opened the Concord Mint and introduced the [[tessel|tessel]] in 1035 AR.",
      { table: {
        caption: "Main acts of Dael's stewardship",
        head: ["Year (AR)", "Act"],
        rows: [["1033", "First census of the Concord"], ["1035", "Introduction of the tessel"], ["1036", "Opening of the Tide Hall"], ["1040", "First banknotes; twinning of Brackenford and Saltmouth"], ["1044", "Common pilotage code with the Lantern Guild"]]
      } }
    ] },
    { id: "later-life", title: "Later life", body: [
      "Dael retired to Lowmere in 1047 AR and wrote a history of the Salt Wars. He died there in 1061 AR, aged 73, and is buried in the abbey cloister. His portrait has been on the 20-[[tessel|tessel]] note since the first banknotes were issued in 1040 AR — the only person to appear on a note during their own lifetime."
    ] }
  ],
  seeAlso: ["treaty-of-lowmere", "veshari-concord", "salt-wars"]
});

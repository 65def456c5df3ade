/* The Veshari Compendium: article data (part A).
 *
 * Every fact here is invented. Articles cross-reference one another and must stay consistent:
 * tasks in tasks.json ask questions whose answers combine facts from several articles.
 * Markup inside strings: [[article-id]] or [[article-id|shown text]] makes an internal link.
 * Body items: a string is a paragraph; {h3}, {table: {caption, head, rows}}, {list}, {quote}.
 */
var WIKI_ARTICLES = [];

WIKI_ARTICLES.push({
  id: "veshari-archipelago",
  title: "Veshari Archipelago",
  category: "Geography",
  image: "islands",
  aliases: ["archipelago", "islands", "veshar", "the reach"],
  summary: "A chain of seven inhabited islands in the Stillwater Sea, united since 1032 AR as the Veshari Concord.",
  infobox: {
    caption: "Relief sketch of the seven islands",
    rows: [
      ["Location", "Stillwater Sea"],
      ["Main islands", "7"],
      ["Total area", "18,420 km²"],
      ["Highest point", "[[mount-skarn|Mount Skarn]] (3,412 m)"],
      ["Largest island", "Hallowmere"],
      ["Largest city", "[[port-casimir|Port Casimir]]"],
      ["Population", "2,316,000 (census of 1184 AR)"],
      ["Government", "[[veshari-concord|Veshari Concord]]"],
      ["Currency", "[[tessel|Tessel]]"],
      ["Calendar", "[[reckoning-calendar|Reckoning calendar]]"]
    ]
  },
  lead: [
    "The **Veshari Archipelago** is a chain of seven inhabited islands and several hundred reefs, skerries and tidal banks lying in the western Stillwater Sea. The islands cover a combined land area of 18,420 square kilometres and, according to the census of 1184 AR, are home to 2,316,000 people. Since the signing of the [[treaty-of-lowmere|Treaty of Lowmere]] in 1032 AR the islands have formed a single polity, the [[veshari-concord|Veshari Concord]], whose parliament sits in [[port-casimir|Port Casimir]] on the island of Hallowmere.",
    "The archipelago is volcanic in origin. Its highest point, [[mount-skarn|Mount Skarn]] on Ember Isle, is an active stratovolcano whose eruptions have shaped both the landscape and the history of the islands. The surrounding waters are shallow, crowded with shoals and frequently covered by sea fog, which explains the unusual importance of lighthouses and pilots in Veshari life and the prestige of the [[lantern-guild|Lantern Guild]]."
  ],
  sections: [
    { id: "islands", title: "The seven islands", body: [
      "Geographers traditionally divide the archipelago into an inner ring of four large islands (Hallowmere, Greythorn, Ember Isle and Saltreach) and an outer fringe of three smaller ones (Orrow, the Isle of Quill and Little Wend). Hallowmere alone holds more than a third of the land and almost half of the population. The Isle of Quill, though small, is the historical heart of the archipelago: the first settlers are said to have landed there, an event from which the [[reckoning-calendar|Reckoning calendar]] counts its years.",
      { table: {
        caption: "Islands of the Veshari Archipelago (census of 1184 AR)",
        head: ["Island", "Area (km²)", "Population", "Chief town"],
        rows: [
          ["Hallowmere", "6,210", "1,104,000", "[[port-casimir|Port Casimir]]"],
          ["Greythorn", "3,140", "402,000", "[[brackenford|Brackenford]]"],
          ["Ember Isle", "2,980", "188,000", "Cinderhythe"],
          ["Saltreach", "2,470", "331,000", "Saltmouth"],
          ["Orrow", "1,775", "174,000", "Fennick"],
          ["Isle of Quill", "1,205", "96,000", "Lowmere"],
          ["Little Wend", "640", "21,000", "Wendhaven"],
          ["Total", "18,420", "2,316,000", "—"]
        ]
      } },
      "Between the islands run a number of named straits. The Casimir Channel separates the two halves of Port Casimir and is crossed by the [[glass-bridge|Glass Bridge]]; Greywater Sound lies between Hallowmere and Saltreach and was the scene of the decisive battle of the [[salt-wars|Salt Wars]]; and the narrow, treacherous Wend Narrows divide Little Wend from Saltreach."
    ] },
    { id: "geology", title: "Geology and landscape", body: [
      "The islands sit on a volcanic ridge that rises from a shallow continental shelf. Only Ember Isle retains an active volcano, but old craters, basalt columns and hot springs are found on every island except Little Wend, which is built largely of coral limestone. Greythorn is the most rugged of the large islands; its iron-rich uplands, drained by the Silt River, supplied the ore that made [[brackenford|Brackenford]] the industrial centre of the Concord.",
      "Saltreach is low and flat. Its wide tidal pans have been used to evaporate sea salt for at least six centuries, and the wealth and quarrels produced by that trade are a recurring thread in Veshari history. Orrow, to the north, is forested and wet; the Isle of Quill is a plateau of heath and sheep pasture ringed by cliffs."
    ] },
    { id: "climate", title: "Climate", body: [
      "The archipelago has a mild maritime climate. Winters are wet and windy, summers cool and often foggy. Rainfall is heaviest on the western slopes of Orrow and lightest on Saltreach, which lies in the rain shadow of Hallowmere's hills. Snow falls every winter on the upper slopes of Mount Skarn but rarely settles at sea level.",
      { table: {
        caption: "Typical climate at Port Casimir",
        head: ["Season", "Mean high (°C)", "Mean low (°C)", "Rain days"],
        rows: [
          ["Winter (Frostmonth–Seedmonth)", "9", "3", "19"],
          ["Spring (Rainmonth–Suncrest)", "14", "7", "14"],
          ["Summer (Highsun–Harvestmonth)", "21", "13", "8"],
          ["Autumn (Mistmonth–Yearsend)", "15", "8", "16"]
        ]
      } },
      "Sea fog, locally called “the grey”, is the defining feature of the Veshari summer. It forms when warm air drifts over the cold upwelling water west of the islands and can linger in the straits for days. The fog is the main reason the Concord maintains one of the densest networks of lighthouses in the Stillwater Sea."
    ] },
    { id: "history", title: "History", body: [
      { h3: "Settlement" },
      "According to tradition, the first settler fleet landed on the Isle of Quill in the year 0 of the Reckoning. The settlers spread outwards over the following centuries, founding fishing villages on every island. Hallowmere's great natural harbour attracted the largest population, and in 871 AR Admiral Teodric Vane founded the fortified town that became [[port-casimir|Port Casimir]].",
      { h3: "Rival island councils" },
      "For most of the first millennium each island was governed by its own council. The councils cooperated on pilotage and lighthouses — the [[lantern-guild|Lantern Guild]] was founded in [[brackenford|Brackenford]] in 944 AR and quickly won the trust of all seven — but competed fiercely over fishing grounds and the salt trade. In 1018 AR the council of Saltreach imposed a heavy export tax on salt, the Brine Levy, which led directly to the [[salt-wars|Salt Wars]].",
      { h3: "The Concord" },
      "The Salt Wars (1019–1031 AR) ended in exhaustion. In 1032 AR delegates from all seven island councils met at Lowmere Abbey on the Isle of Quill and signed the [[treaty-of-lowmere|Treaty of Lowmere]], which created the [[veshari-concord|Veshari Concord]], a common parliament called the Moot of Tides, and a common currency, the [[tessel|tessel]]. The chief architect of the settlement, [[brannock-dael|Brannock Dael]], became the Concord's first First Steward.",
      { h3: "The modern era" },
      "The twelfth century AR was a period of growth and building. The [[glass-bridge|Glass Bridge]] was completed in 1121 AR, the [[university-of-casimir|University of Casimir]] expanded to nine faculties, and explorers such as [[mirela-oskavy|Mirela Oskavy]] charted the mountains and outer reefs. The last eruption of [[mount-skarn|Mount Skarn]], in 1167 AR, forced the temporary evacuation of Cinderhythe but caused no deaths."
    ] },
    { id: "economy", title: "Economy", body: [
      "The traditional pillars of the Veshari economy are fishing, salt, iron and glass. Salt from Saltreach and iron goods from Greythorn remain the largest exports by value. Port Casimir is the centre of banking and shipping: the Tidewater Exchange, founded in 1049 AR, sets the price of salt across the western Stillwater Sea.",
      "Glassmaking, which began as a use for the fine black sand of Ember Isle, has become an emblem of the islands. The craft gave its name to Port Casimir's Glassmarket district and its most famous structure, the [[glass-bridge|Glass Bridge]].",
      { table: {
        caption: "Leading exports, 1183 AR",
        head: ["Product", "Share of exports", "Main source"],
        rows: [
          ["Sea salt", "31%", "Saltreach"],
          ["Iron and ironware", "24%", "Greythorn"],
          ["Fish and fish oil", "18%", "All islands"],
          ["Glass", "11%", "Hallowmere, Ember Isle"],
          ["Wool", "7%", "Isle of Quill"],
          ["Other", "9%", "—"]
        ]
      } }
    ] },
    { id: "culture", title: "Culture and symbols", body: [
      "The national emblem of the Concord is the [[skarn-glasswing|Skarn glasswing]], a large moth found only on Ember Isle, adopted in 1140 AR. The most important public holiday is Lantern Day, the extra day at the end of the year in the [[reckoning-calendar|Reckoning calendar]], when every household places a lamp in a window in honour of the lighthouse keepers.",
      "Veshari is spoken on every island, with strong regional accents; the speech of Little Wend is sometimes considered a separate dialect. Most towns hold a harbour fair in Highsun, and the rowing race across the Casimir Channel, first held in 1056 AR, draws crowds from the whole archipelago."
    ] }
  ],
  seeAlso: ["veshari-concord", "port-casimir", "mount-skarn", "salt-wars"]
});

WIKI_ARTICLES.push({
  id: "port-casimir",
  title: "Port Casimir",
  category: "Places",
  image: "city",
  aliases: ["casimir", "capital", "the capital"],
  summary: "Capital and largest city of the Veshari Concord, on the island of Hallowmere.",
  infobox: {
    caption: "The harbour front seen from the Glass Bridge",
    rows: [
      ["Island", "Hallowmere"],
      ["Status", "Capital of the [[veshari-concord|Veshari Concord]]"],
      ["Founded", "871 AR"],
      ["Founder", "Admiral Teodric Vane"],
      ["Area", "148 km²"],
      ["Elevation", "12 m"],
      ["Population", "612,400 (1184 AR)"],
      ["Districts", "6"],
      ["Harbourmaster-Mayor", "Ilse Marrowind (since 1180 AR)"]
    ]
  },
  lead: [
    "**Port Casimir** is the capital and largest city of the [[veshari-concord|Veshari Concord]]. It stands on both banks of the Casimir Channel, on the eastern coast of Hallowmere, the largest island of the [[veshari-archipelago|Veshari Archipelago]]. With 612,400 inhabitants in 1184 AR it houses more than a quarter of the population of the islands.",
    "The city is the seat of the Moot of Tides, the Concord Mint, the Tidewater Exchange and the [[university-of-casimir|University of Casimir]]. Its skyline is dominated by the [[glass-bridge|Glass Bridge]], which joins the old town on the western bank to the newer districts on the eastern bank."
  ],
  sections: [
    { id: "history", title: "History", body: [
      { h3: "Foundation" },
      "The site was a fishing hamlet known as Casim's Landing until 871 AR, when Admiral Teodric Vane (838–902 AR), commander of the Hallowmere war fleet, chose the sheltered channel as the fleet's winter anchorage. Vane built a stone harbour wall, a watch tower and a market square, and the settlement was renamed Port Casimir. Vane governed the town until his death in 902 AR; he is buried beneath the watch tower, which now forms the base of Vane Point Light.",
      { h3: "Growth" },
      "By the tenth century AR Port Casimir had become the richest town in the archipelago. The [[university-of-casimir|University of Casimir]] was founded on the hill of Highcastle in 958 AR. During the [[salt-wars|Salt Wars]] the city served as the headquarters of the Hallowmere Compact, and the victorious fleet sailed from its harbour before the Battle of Greywater Sound in 1029 AR.",
      { h3: "Capital of the Concord" },
      "After the [[treaty-of-lowmere|Treaty of Lowmere]] (1032 AR) Port Casimir was chosen as the seat of the new parliament, the Moot of Tides, which meets in the Tide Hall on the old harbour front. The Concord Mint opened in the Glassmarket district in 1035 AR to strike the new [[tessel|tessel]] coinage. The construction of the [[glass-bridge|Glass Bridge]] between 1114 and 1121 AR allowed the city to expand across the channel, and the eastern districts now hold most of its population."
    ] },
    { id: "districts", title: "Districts", body: [
      "The city is divided into six districts, each with an elected district warden. Old Harbour, Glassmarket and Highcastle lie on the western bank; Tidewater, Vane's Reach and Lampside on the eastern bank.",
      { table: {
        caption: "Districts of Port Casimir (1184 AR)",
        head: ["District", "Bank", "Population", "Known for"],
        rows: [
          ["Old Harbour", "West", "71,200", "Tide Hall, fish market"],
          ["Tidewater", "East", "128,500", "Docks, Tidewater Exchange"],
          ["Glassmarket", "West", "96,300", "Concord Mint, glassworks"],
          ["Highcastle", "West", "84,700", "[[university-of-casimir|University of Casimir]]"],
          ["Vane's Reach", "East", "142,100", "Housing, parks, the Reach Gardens"],
          ["Lampside", "East", "89,600", "Vane Point Light, shipyards"]
        ]
      } },
      "Vane's Reach, named after the city's founder, is the most populous district. It was largely farmland until the opening of the Glass Bridge and was built up in a planned grid during the 1120s and 1130s AR."
    ] },
    { id: "landmarks", title: "Landmarks", body: [
      { list: [
        "The **Tide Hall** (1036 AR), seat of the Moot of Tides, a long timber-roofed hall on the Old Harbour quay.",
        "The **[[glass-bridge|Glass Bridge]]** (1121 AR), 1,140 m long, linking Old Harbour with Vane's Reach.",
        "**Vane Point Light** (1012 AR), at 68 m the tallest lighthouse maintained by the [[lantern-guild|Lantern Guild]].",
        "The **Concord Mint** (1035 AR) in Glassmarket, where all [[tessel|tessel]] coins are struck.",
        "The **Reach Gardens**, a 40-hectare park laid out in 1128 AR."
      ] }
    ] },
    { id: "government", title: "Government", body: [
      "Port Casimir is governed by a city council of 31 members and a Harbourmaster-Mayor, an office that combines the management of the port with the leadership of the city. The title dates from Vane's time, when the harbour was the town. The current Harbourmaster-Mayor, Ilse Marrowind, was elected in 1180 AR. As capital of the Concord the city also hosts the Moot of Tides and the office of the First Steward, but these are national institutions and have no role in city government."
    ] },
    { id: "transport", title: "Transport", body: [
      "Trams run across the Glass Bridge and along both quays. Ferries connect Port Casimir to every other island; the busiest route, to Saltmouth on Saltreach across Greywater Sound, takes about three hours. The city's harbour handled 6.8 million tonnes of cargo in 1183 AR, most of it salt, iron and fish."
    ] }
  ],
  seeAlso: ["glass-bridge", "university-of-casimir", "veshari-concord", "tessel"]
});

WIKI_ARTICLES.push({
  id: "brackenford",
  title: "Brackenford",
  category: "Places",
  image: "town",
  aliases: ["bracken ford", "iron town"],
  summary: "Industrial city on the Silt River, headquarters of the Lantern Guild.",
  infobox: {
    caption: "Foundry chimneys above the Silt River",
    rows: [
      ["Island", "Greythorn"],
      ["Founded", "903 AR"],
      ["Elevation", "214 m"],
      ["River", "Silt River"],
      ["Population", "188,900 (1184 AR)"],
      ["Known for", "Ironworks, Lamphouse Hall"],
      ["Twin town", "Saltmouth (since 1040 AR)"]
    ]
  },
  lead: [
    "**Brackenford** is the chief town of the island of Greythorn and the second-largest city of the [[veshari-archipelago|Veshari Archipelago]], with 188,900 inhabitants in 1184 AR. It lies 214 metres above sea level on the Silt River, at the lowest point where the river could be forded, some 22 kilometres inland from the coast.",
    "Brackenford is the industrial heart of the Concord, famous for its iron foundries, and is the home of the [[lantern-guild|Lantern Guild]], whose headquarters, Lamphouse Hall, overlooks the old ford. It is the birthplace of the guild's founder, [[odile-fenwarren|Odile Fenwarren]]."
  ],
  sections: [
    { id: "history", title: "History", body: [
      "Brackenford was founded in 903 AR as a market town where upland farmers met traders coming up the Silt River by barge. The discovery of rich iron ore in the Greythorn uplands in the 920s AR transformed it into a foundry town within a generation. In 944 AR [[odile-fenwarren|Odile Fenwarren]] founded the [[lantern-guild|Lantern Guild]] in a foundry workshop on Tallow Lane; the guild has kept its headquarters in the city ever since.",
      "During the [[salt-wars|Salt Wars]] Brackenford supplied the iron for the Hallowmere Compact's fleet and was besieged by the Saltreach League from 1024 to 1025 AR. The siege lasted 211 days and ended when a relief column from Port Casimir broke through along the Silt River. The city walls were demolished in 1068 AR to make room for new foundries.",
      "In 1040 AR, in a gesture of reconciliation after the wars, Brackenford and Saltmouth became twin towns. The twinning is celebrated each Mistmonth with an exchange of salt and iron between the two mayors."
    ] },
    { id: "economy", title: "Economy", body: [
      "Ironworking remains the largest employer. The Greythorn Foundries, the biggest of the works, cast the iron frame of the [[glass-bridge|Glass Bridge]] in the 1110s AR. Lens grinding, introduced by the Lantern Guild, is a specialised local trade; almost all lighthouse lenses in the archipelago are ground in Brackenford.",
      { table: {
        caption: "Employment in Brackenford by sector (1183 AR)",
        head: ["Sector", "Workers", "Share"],
        rows: [
          ["Iron and metalwork", "31,400", "36%"],
          ["Trade and transport", "17,000", "20%"],
          ["Lens and instrument making", "6,100", "7%"],
          ["Public service (incl. the Lantern Guild)", "12,200", "14%"],
          ["Other", "19,800", "23%"]
        ]
      } }
    ] },
    { id: "landmarks", title: "Landmarks", body: [
      { list: [
        "**Lamphouse Hall**, headquarters of the [[lantern-guild|Lantern Guild]], rebuilt in stone in 1012 AR.",
        "The **Old Ford**, a line of stepping stones still visible when the Silt River is low.",
        "**Fenwarren's Workshop** on Tallow Lane, now a museum of lighthouse optics.",
        "The **Siege Stair**, a flight of 211 steps cut into the river bluff, one for each day of the siege."
      ] }
    ] },
    { id: "climate", title: "Climate", body: [
      "Being inland and higher than the coastal towns, Brackenford has colder winters than Port Casimir and is one of the few towns in the archipelago that sees lying snow most years. Summer fog rarely reaches the city, but smoke from the foundries once produced a haze locals called “the brown”."
    ] }
  ],
  seeAlso: ["lantern-guild", "odile-fenwarren", "salt-wars"]
});

WIKI_ARTICLES.push({
  id: "mount-skarn",
  title: "Mount Skarn",
  category: "Geography",
  image: "volcano",
  aliases: ["skarn", "volcano", "ember isle volcano"],
  summary: "Active stratovolcano on Ember Isle and the highest point of the archipelago.",
  infobox: {
    caption: "Mount Skarn from the Cinderhythe road",
    rows: [
      ["Elevation", "3,412 m"],
      ["Location", "Ember Isle"],
      ["Type", "Stratovolcano"],
      ["Last eruption", "1167 AR"],
      ["First ascent", "1102 AR, [[mirela-oskavy|Mirela Oskavy]] and party"],
      ["Observatory", "Skarn Watch (since 1093 AR)"]
    ]
  },
  lead: [
    "**Mount Skarn** is an active stratovolcano on Ember Isle. At 3,412 metres it is the highest point of the [[veshari-archipelago|Veshari Archipelago]] and, on clear days, can be seen from every island of the chain. Its upper slopes are the only habitat of the [[skarn-glasswing|Skarn glasswing]], the national emblem of the Concord.",
    "The volcano has erupted at least eleven times in recorded history. The Great Eruption of 1090 AR was the worst natural disaster in Veshari history; the most recent eruption, in 1167 AR, was smaller and caused no deaths."
  ],
  sections: [
    { id: "geography", title: "Geography", body: [
      "Mount Skarn occupies most of the interior of Ember Isle. Its summit crater is about 900 metres across and holds a small acid lake that freezes in winter. Black lava fields run down the northern flank to the sea; the southern flank is covered in heath and, lower down, in the terraced vineyards around the town of Cinderhythe, 16 kilometres from the summit.",
      "Between about 1,800 and 2,900 metres the mountain is covered in a belt of stunted pine and fern, the home of the [[skarn-glasswing|Skarn glasswing]]. Above 2,900 metres the slopes are bare scree and ash."
    ] },
    { id: "eruptions", title: "Eruptive history", body: [
      "Observations before the founding of Skarn Watch are incomplete. The table lists the eruptions recorded since 1000 AR.",
      { table: {
        caption: "Recorded eruptions of Mount Skarn since 1000 AR",
        head: ["Year (AR)", "Character", "Effects"],
        rows: [
          ["1044", "Ash eruption", "Ash fall on Ember Isle"],
          ["1090", "Great Eruption", "Village of Harrowby destroyed; about 2,300 deaths"],
          ["1131", "Lava flow", "Northern road cut for two years"],
          ["1167", "Ash eruption", "Ash column 9 km high; Cinderhythe evacuated for 40 days"]
        ]
      } },
      { h3: "The Great Eruption of 1090 AR" },
      "In Emberfall 1090 AR, after weeks of earthquakes, the volcano exploded with a force that was heard in [[port-casimir|Port Casimir]]. Pyroclastic flows buried the village of Harrowby on the eastern flank and killed about 2,300 people. Ash fell as far away as Saltreach, and the summer harvest failed across the archipelago. The disaster led the Concord to found the observatory of Skarn Watch in 1093 AR."
    ] },
    { id: "ascents", title: "Ascents", body: [
      "The summit was long considered unreachable because of loose ash and poisonous gas near the crater. The first recorded ascent was made in Highsun 1102 AR by [[mirela-oskavy|Mirela Oskavy]] with three companions — the guides Tam and Ossel Harrow and the surveyor Jory Penn — by the route along the southern ridge now called Oskavy's Ridge. They spent a night at 2,950 metres and reached the crater rim the following morning.",
      "Today the southern ridge route is climbed by about 3,000 people a year. It is closed whenever Skarn Watch raises the alert level above “green”."
    ] },
    { id: "monitoring", title: "Monitoring", body: [
      "Skarn Watch, on the southern flank at 1,420 metres, has kept continuous records since 1093 AR. It operates four alert levels: green, yellow, orange and red. The alert level was last raised to red in 1167 AR. The observatory is run by the [[university-of-casimir|University of Casimir]] on behalf of the Concord."
    ] }
  ],
  seeAlso: ["skarn-glasswing", "mirela-oskavy", "veshari-archipelago"]
});

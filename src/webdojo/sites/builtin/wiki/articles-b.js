/* The Veshari Compendium: article data (part B). See articles-a.js for the markup. */

WIKI_ARTICLES.push({
  id: "lantern-guild",
  title: "Lantern Guild",
  category: "Institutions",
  image: "lighthouse",
  aliases: ["lighthouse keepers", "lighthouses", "guild", "keepers"],
  summary: "Guild of lighthouse keepers and pilots that maintains the archipelago's 52 lighthouses.",
  infobox: {
    caption: "The guild's lantern-and-wave seal",
    rows: [
      ["Founded", "944 AR"],
      ["Founder", "[[odile-fenwarren|Odile Fenwarren]]"],
      ["Headquarters", "Lamphouse Hall, [[brackenford|Brackenford]]"],
      ["Members", "3,870"],
      ["Lighthouses", "52"],
      ["Grand Warden", "Pell Ashgrove (since 1176 AR)"],
      ["Motto", "“No ship unlit”"]
    ]
  },
  lead: [
    "The **Lantern Guild** is the guild of lighthouse keepers, lens makers and harbour pilots of the [[veshari-archipelago|Veshari Archipelago]]. It was founded in 944 AR by [[odile-fenwarren|Odile Fenwarren]] and has its headquarters at Lamphouse Hall in [[brackenford|Brackenford]]. The guild maintains 52 lighthouses and has 3,870 members.",
    "Older than the Concord itself, the guild is among the most respected institutions of the islands. Its neutrality, tested during the [[salt-wars|Salt Wars]], was written into Article 19 of the [[treaty-of-lowmere|Treaty of Lowmere]]."
  ],
  sections: [
    { id: "history", title: "History", body: [
      { h3: "Foundation" },
      "Before the guild, lights on the Veshari coast were kept by villages and private shipowners, and many burned only when it suited their keepers. [[odile-fenwarren|Odile Fenwarren]], a foundry worker's daughter from Brackenford, persuaded the seven island councils to fund a single body of trained keepers answerable to none of them. The charter was signed in 944 AR in her workshop on Tallow Lane, and she served as the first Grand Warden until 979 AR.",
      { h3: "The Salt Wars" },
      "During the [[salt-wars|Salt Wars]] (1019–1031 AR) both sides demanded that the guild darken the lights on their enemies' coasts. The guild refused and kept every light burning for the whole of the war; keepers on Saltreach and on Hallowmere alike were imprisoned for their refusal. In gratitude, the [[treaty-of-lowmere|Treaty of Lowmere]] declared the guild and its lights permanently neutral.",
      { h3: "Modern guild" },
      "Since the twelfth century AR the guild has added harbour pilotage and fog signalling to its duties. It runs a school for keepers at Lamphouse Hall that admits about 120 apprentices a year. The current Grand Warden, Pell Ashgrove, was elected in 1176 AR."
    ] },
    { id: "lighthouses", title: "Lighthouses", body: [
      "The guild maintains 52 lighthouses. The distribution by island reflects both the length of each coastline and the danger of its waters: Little Wend, the smallest inhabited island, has six lights because of the reefs of the Wend Narrows.",
      { table: {
        caption: "Lighthouses maintained by the Lantern Guild, by island",
        head: ["Island", "Lighthouses", "Notable light"],
        rows: [
          ["Hallowmere", "11", "Vane Point Light (68 m)"],
          ["Greythorn", "7", "Silt Mouth Light"],
          ["Saltreach", "9", "Pan Head Light"],
          ["Ember Isle", "6", "Black Sand Light"],
          ["Orrow", "8", "Fennick Light"],
          ["Isle of Quill", "5", "Abbey Light"],
          ["Little Wend", "6", "Narrows Light"],
          ["Total", "52", "—"]
        ]
      } },
      "The tallest is Vane Point Light in [[port-casimir|Port Casimir]], 68 metres high, built in 1012 AR on the base of Admiral Teodric Vane's watch tower. The oldest still in use is Abbey Light on the Isle of Quill, first lit in 951 AR with one of the first Fenwarren lenses."
    ] },
    { id: "organisation", title: "Organisation", body: [
      "The guild is led by a Grand Warden elected for life by the Chapter, an assembly of the head keepers of all 52 lights. Members belong to one of three orders: keepers, who tend the lights; pilots, who guide ships through the straits; and grinders, who make and maintain lenses in the guild workshops of Brackenford.",
      { table: {
        caption: "Membership by order (1184 AR)",
        head: ["Order", "Members"],
        rows: [["Keepers", "1,940"], ["Pilots", "1,310"], ["Grinders", "620"], ["Total", "3,870"]]
      } }
    ] },
    { id: "traditions", title: "Traditions", body: [
      "Lantern Day, the intercalary day at the end of the [[reckoning-calendar|Reckoning calendar]] year, was declared a public holiday in honour of the guild in 1050 AR. Each Lantern Day the Grand Warden relights the lamp in Fenwarren's Workshop in Brackenford, and every lighthouse flashes the guild's signal — three long, one short — at midnight."
    ] }
  ],
  seeAlso: ["odile-fenwarren", "brackenford", "treaty-of-lowmere"]
});

WIKI_ARTICLES.push({
  id: "odile-fenwarren",
  title: "Odile Fenwarren",
  category: "People",
  image: "person",
  aliases: ["fenwarren", "odile"],
  summary: "Founder and first Grand Warden of the Lantern Guild; inventor of the Fenwarren lens (912–987 AR).",
  infobox: {
    caption: "Portrait after the 10-tessel banknote",
    rows: [
      ["Born", "912 AR, [[brackenford|Brackenford]]"],
      ["Died", "987 AR, Saltmouth"],
      ["Known for", "Founding the [[lantern-guild|Lantern Guild]]; the Fenwarren lens"],
      ["Office", "Grand Warden (944–979 AR)"],
      ["Honours", "Portrait on the 10-[[tessel|tessel]] note"]
    ]
  },
  lead: [
    "**Odile Fenwarren** (912–987 AR) was a Veshari lens maker and organiser who founded the [[lantern-guild|Lantern Guild]] in 944 AR and led it as its first Grand Warden for thirty-five years. Her stepped glass lens, the Fenwarren lens, multiplied the range of coastal lights and is still the basis of Veshari lighthouse optics."
  ],
  sections: [
    { id: "early-life", title: "Early life", body: [
      "Fenwarren was born in [[brackenford|Brackenford]] in 912 AR, the third child of a foundry worker and a net maker. She was apprenticed at twelve to a glass grinder on Tallow Lane, where she learned to make spectacle lenses. A shipwreck off Silt Mouth in 931 AR, in which her elder brother drowned within sight of an unlit tower, is traditionally given as the reason for her lifelong interest in lighthouses."
    ] },
    { id: "lantern-guild", title: "The Lantern Guild", body: [
      "In the late 930s AR Fenwarren travelled to each of the seven island councils with a proposal for a single, independent body of trained keepers. The charter of the [[lantern-guild|Lantern Guild]] was signed in her workshop in 944 AR, when she was 32. As Grand Warden she introduced fixed watches, written logbooks and the rule that a keeper may never leave a light unattended — the origin of the guild's motto, “No ship unlit”.",
      "She retired as Grand Warden in 979 AR and was succeeded by her former apprentice, Aldo Crane."
    ] },
    { id: "lens", title: "The Fenwarren lens", body: [
      "Fenwarren's best-known invention, completed in 951 AR, is a lens built from concentric rings of glass prisms instead of a single thick block. It is much lighter than a solid lens and throws a beam several times farther. The first was installed in Abbey Light on the Isle of Quill, which still uses it.",
      { table: {
        caption: "Range of a coastal light by optic (guild trials, 952 AR)",
        head: ["Optic", "Visible range"],
        rows: [["Open flame, no lens", "4 nautical miles"], ["Solid glass lens", "9 nautical miles"], ["Fenwarren lens", "21 nautical miles"]]
      } }
    ] },
    { id: "later-life", title: "Later life and legacy", body: [
      "In retirement Fenwarren moved to Saltmouth on Saltreach, where she taught lens grinding, and she died there in 987 AR at the age of 75. Her workshop in Brackenford is now a museum. Since 1040 AR her portrait has appeared on the 10-[[tessel|tessel]] banknote, and the guild relights her workshop lamp every Lantern Day."
    ] }
  ],
  seeAlso: ["lantern-guild", "brackenford", "tessel"]
});

WIKI_ARTICLES.push({
  id: "salt-wars",
  title: "Salt Wars",
  category: "History",
  image: "swords",
  aliases: ["salt war", "brine levy", "greywater sound", "war"],
  summary: "Conflict of 1019–1031 AR between the Saltreach League and the Hallowmere Compact over the salt trade.",
  infobox: {
    caption: "Ships at the Battle of Greywater Sound",
    rows: [
      ["Date", "1019–1031 AR"],
      ["Location", "Veshari Archipelago"],
      ["Cause", "The Brine Levy of 1018 AR"],
      ["Result", "Hallowmere Compact victory; [[treaty-of-lowmere|Treaty of Lowmere]]"],
      ["Saltreach League", "Saltreach, Little Wend"],
      ["Hallowmere Compact", "Hallowmere, Greythorn, Orrow"],
      ["Neutral", "Ember Isle, Isle of Quill"],
      ["Casualties", "about 14,200"]
    ]
  },
  lead: [
    "The **Salt Wars** were a series of campaigns fought between 1019 and 1031 AR among the island councils of the [[veshari-archipelago|Veshari Archipelago]]. They pitted the **Saltreach League** of Saltreach and Little Wend against the **Hallowmere Compact** of Hallowmere, Greythorn and Orrow. Ember Isle and the Isle of Quill stayed neutral throughout.",
    "The wars began over the Brine Levy, a tax on exported salt, and ended with the exhaustion of both sides. The armistice of 1031 AR was followed a year later by the [[treaty-of-lowmere|Treaty of Lowmere]], which united the islands as the [[veshari-concord|Veshari Concord]]."
  ],
  sections: [
    { id: "background", title: "Background", body: [
      "Saltreach produced nearly all of the archipelago's salt, which the other islands needed to preserve fish. In 1018 AR, after two poor harvests, the council of Saltreach imposed the Brine Levy, a tax of one part in four on all salt leaving the island. Hallowmere, whose fishing fleet depended on Saltreach salt, answered by closing its harbours to Saltreach ships, and Greythorn and Orrow joined it in the Hallowmere Compact. Little Wend, which depended on Saltreach for almost everything, joined the Saltreach League."
    ] },
    { id: "course", title: "Course of the wars", body: [
      "The fighting was mostly at sea, punctuated by raids and one long siege.",
      { table: {
        caption: "Principal engagements",
        head: ["Year (AR)", "Engagement", "Outcome"],
        rows: [
          ["1021", "Battle of Wend Narrows", "Saltreach League victory"],
          ["1024–1025", "Siege of [[brackenford|Brackenford]] (211 days)", "Siege relieved; Compact victory"],
          ["1027", "Raid on Fennick", "Town burned; no decisive result"],
          ["1029", "Battle of Greywater Sound", "Decisive Hallowmere Compact victory"],
          ["1030", "Burning of the Saltmouth docks", "Compact victory"]
        ]
      } },
      "The Battle of Greywater Sound, fought in Saltmonth 1029 AR, destroyed most of the League's fleet. After the burning of the Saltmouth docks the next year, the League asked for terms, and an armistice was agreed in the spring of 1031 AR.",
      "Throughout the wars the [[lantern-guild|Lantern Guild]] kept every light burning on both sides' coasts, despite the imprisonment of several of its keepers."
    ] },
    { id: "casualties", title: "Casualties", body: [
      "Contemporary estimates put the total dead at about 14,200, of whom roughly 9,000 belonged to the Saltreach League. More than half of the deaths were caused not by fighting but by hunger and fever during the Siege of Brackenford and the blockade of Saltreach."
    ] },
    { id: "aftermath", title: "Aftermath", body: [
      "Peace talks opened at Lowmere Abbey on the neutral Isle of Quill. The chancellor of the Quill council, [[brannock-dael|Brannock Dael]], proposed that instead of a settlement between victors and vanquished the seven islands should form a single union. The resulting [[treaty-of-lowmere|Treaty of Lowmere]] (1032 AR) abolished the Brine Levy, created the [[veshari-concord|Veshari Concord]], and introduced a common currency, the [[tessel|tessel]]."
    ] }
  ],
  seeAlso: ["treaty-of-lowmere", "brannock-dael", "brackenford"]
});

WIKI_ARTICLES.push({
  id: "treaty-of-lowmere",
  title: "Treaty of Lowmere",
  category: "History",
  image: "scroll",
  aliases: ["lowmere treaty", "treaty", "lowmere abbey"],
  summary: "Treaty of 1032 AR that ended the Salt Wars and founded the Veshari Concord.",
  infobox: {
    caption: "The sealed treaty roll, Lowmere Abbey archive",
    rows: [
      ["Signed", "14 Harvestmonth 1032 AR"],
      ["Location", "Lowmere Abbey, Isle of Quill"],
      ["Negotiator", "[[brannock-dael|Brannock Dael]]"],
      ["Signatories", "7 island councils"],
      ["Articles", "23"],
      ["Effect", "Founded the [[veshari-concord|Veshari Concord]]"]
    ]
  },
  lead: [
    "The **Treaty of Lowmere** was signed on 14 Harvestmonth 1032 AR at Lowmere Abbey on the Isle of Quill by the councils of all seven islands of the [[veshari-archipelago|Veshari Archipelago]]. It ended the [[salt-wars|Salt Wars]] and founded the [[veshari-concord|Veshari Concord]], the union that still governs the islands.",
    "The treaty was negotiated by [[brannock-dael|Brannock Dael]], chancellor of the Quill council, who was then 44 years old. It has 23 articles."
  ],
  sections: [
    { id: "negotiations", title: "Negotiations", body: [
      "Talks began in Rainmonth 1032 AR, a year after the armistice. The Isle of Quill was chosen as host because it had stayed neutral in the wars and because, as the landing place of the first settlers, it was regarded as common ground. Delegations were housed in the abbey guest hall, and sessions were held in the chapter house, where the table used for the signing is still displayed.",
      "Dael's proposal of a full union rather than a peace between victors and vanquished met strong resistance from Hallowmere, which wished to annex Saltreach's salt pans outright. The compromise, reached after five months, gave Hallowmere the seat of the new parliament in [[port-casimir|Port Casimir]] in exchange for common ownership of the salt trade."
    ] },
    { id: "provisions", title: "Main provisions", body: [
      { table: {
        caption: "Selected articles of the treaty",
        head: ["Article", "Provision"],
        rows: [
          ["1", "The seven islands form one Concord"],
          ["4", "A parliament, the Moot of Tides, with seats allotted by population"],
          ["7", "The First Steward, elected by the Moot"],
          ["11", "Abolition of the Brine Levy and all inter-island tariffs"],
          ["15", "A common coinage, struck at a single mint"],
          ["19", "Perpetual neutrality of the [[lantern-guild|Lantern Guild]] and its lights"],
          ["23", "Lowmere Abbey to keep the original treaty roll"]
        ]
      } },
      "Article 15 led to the introduction of the [[tessel|tessel]] in 1035 AR. Article 4 originally provided for 63 seats; the number has been enlarged several times and now stands at 91."
    ] },
    { id: "signatories", title: "Signatories", body: [
      "Each island council sent a delegation of three and signed once. The signatories were the councils of Hallowmere, Greythorn, Saltreach, Ember Isle, Orrow, the Isle of Quill and Little Wend. The [[lantern-guild|Lantern Guild]] attended as an observer but did not sign."
    ] },
    { id: "legacy", title: "Legacy", body: [
      "The signing is commemorated each 14 Harvestmonth as Concord Day. The original roll, sealed with seven wax seals, is kept in Lowmere Abbey under Article 23 and shown to the public once a year."
    ] }
  ],
  seeAlso: ["salt-wars", "veshari-concord", "brannock-dael"]
});

// Hearth & Hue catalogue. Static data: the same for every episode.
// Prices are US dollars; stock is the number of units that can be ordered.
var SHOP_TODAY = "2026-03-10";

var CATEGORIES = [
  { id: "lighting", name: "Lighting" },
  { id: "kitchen", name: "Kitchen" },
  { id: "textiles", name: "Textiles" },
  { id: "decor", name: "Decor" },
  { id: "furniture", name: "Furniture" },
  { id: "bath", name: "Bath" }
];

// colour name -> swatch hex
var COLOURS = {
  brass: "#c9a24a", black: "#2b2b2b", white: "#f4f1ea", sage: "#9caf88", slate: "#5b6770",
  cream: "#efe3c8", red: "#d2463c", teal: "#2f8f8a", charcoal: "#3d3f42", mustard: "#d9a520",
  rust: "#b5562b", oat: "#d8c9a8", clay: "#c07a5a", blush: "#e8b4b0", ochre: "#c8902e",
  blue: "#3f6fb5", oak: "#c49a62", walnut: "#6b4a32", green: "#4f7a4a", grey: "#9a9a9a",
  sand: "#d9c7a2", natural: "#cdb38a", terracotta: "#c4673f", amber: "#e0a040",
  honey: "#e2b35b", marble: "#e6e3de", glass: "#bcd8d9", olive: "#8a7a4a", seagrass: "#b3a46c"
};

var PRODUCTS = [
  { id: "lamp-desk", name: "Arc Desk Lamp", category: "lighting", price: 89.0, rating: 4.6, reviews: 212, stock: 7, colours: ["brass", "black"], sizes: [], shape: "lamp", blurb: "A slim, adjustable desk lamp with a weighted base and a warm 2700K bulb." },
  { id: "pendant-rattan", name: "Rattan Pendant Shade", category: "lighting", price: 64.0, rating: 4.4, reviews: 98, stock: 12, colours: [], sizes: [], shape: "pendant", base: "natural", blurb: "Hand-woven rattan shade that casts soft, patterned light. Fits standard ceiling fittings." },
  { id: "lamp-floor", name: "Arc Floor Lamp", category: "lighting", price: 189.0, rating: 4.8, reviews: 341, stock: 3, colours: ["black", "white"], sizes: [], shape: "floorlamp", blurb: "A sweeping arched floor lamp that reaches over a sofa or reading chair." },
  { id: "lantern-glass", name: "Glass Lantern", category: "lighting", price: 32.0, rating: 4.1, reviews: 45, stock: 0, colours: [], sizes: [], shape: "lantern", base: "glass", blurb: "A ribbed glass lantern for a tea light or a small pillar candle." },
  { id: "string-lights", name: "Warm String Lights", category: "lighting", price: 18.5, rating: 4.3, reviews: 503, stock: 25, colours: [], sizes: [], shape: "lights", base: "amber", blurb: "Ten metres of warm-white micro LEDs on a soft copper wire." },
  { id: "mug-stone", name: "Stoneware Mug", category: "kitchen", price: 14.0, rating: 4.7, reviews: 688, stock: 40, colours: ["sage", "slate", "cream"], sizes: [], shape: "mug", blurb: "A generous 350 ml mug with a speckled reactive glaze. Dishwasher safe." },
  { id: "board-oak", name: "Oak Serving Board", category: "kitchen", price: 38.0, rating: 4.5, reviews: 156, stock: 9, colours: [], sizes: ["Small", "Large"], shape: "board", base: "oak", blurb: "Solid oak board for bread, cheese and everything in between." },
  { id: "kettle-enamel", name: "Enamel Kettle", category: "kitchen", price: 56.0, rating: 4.2, reviews: 87, stock: 6, colours: ["red", "white", "teal"], sizes: [], shape: "kettle", blurb: "A 1.8 litre stovetop kettle in glossy enamel with a whistle spout." },
  { id: "towels-tea", name: "Cotton Tea Towels (set of 3)", category: "kitchen", price: 16.0, rating: 4.0, reviews: 133, stock: 30, colours: [], sizes: [], shape: "towel", base: "cream", blurb: "Three absorbent cotton towels in a striped, gingham and plain weave." },
  { id: "spoons-olive", name: "Olivewood Spoon Set", category: "kitchen", price: 8.0, rating: 3.9, reviews: 61, stock: 0, colours: [], sizes: [], shape: "spoon", base: "olive", blurb: "Three carved olivewood spoons, each one slightly different." },
  { id: "jar-glass", name: "Glass Storage Jar", category: "kitchen", price: 11.5, rating: 4.2, reviews: 240, stock: 35, colours: [], sizes: [], shape: "jar", base: "glass", blurb: "An airtight jar with a bamboo lid for pasta, oats or coffee." },
  { id: "apron-linen", name: "Linen Apron", category: "kitchen", price: 29.0, rating: 4.9, reviews: 74, stock: 0, colours: [], sizes: [], shape: "apron", base: "oat", blurb: "A washed-linen apron with cross-back straps and a deep front pocket." },
  { id: "throw-wool", name: "Wool Throw", category: "textiles", price: 72.0, rating: 4.8, reviews: 265, stock: 8, colours: ["charcoal", "mustard", "rust"], sizes: ["Standard", "Large"], shape: "throw", blurb: "A heavyweight lambswool throw with fringed ends. Standard 130x170 cm, Large 150x200 cm." },
  { id: "runner-linen", name: "Linen Table Runner", category: "textiles", price: 24.0, rating: 4.3, reviews: 92, stock: 15, colours: [], sizes: [], shape: "runner", base: "oat", blurb: "A 45x200 cm stonewashed linen runner with a hemstitched edge." },
  { id: "napkins-linen", name: "Linen Napkins (set of 4)", category: "textiles", price: 22.0, rating: 4.4, reviews: 118, stock: 20, colours: ["oat", "sage", "clay"], sizes: [], shape: "napkin", blurb: "Four soft linen napkins that get better with every wash." },
  { id: "cushion-velvet", name: "Velvet Cushion", category: "textiles", price: 34.0, rating: 4.5, reviews: 199, stock: 11, colours: ["teal", "blush", "ochre"], sizes: [], shape: "cushion", blurb: "A plump 45 cm cushion in cotton velvet with a feather insert." },
  { id: "rug-jute", name: "Jute Rug", category: "textiles", price: 129.0, rating: 4.2, reviews: 58, stock: 4, colours: [], sizes: ["120x180 cm", "160x230 cm"], shape: "rug", base: "natural", blurb: "A chunky braided jute rug that brings warmth to bare floors." },
  { id: "vase-ceramic", name: "Ceramic Vase", category: "decor", price: 42.0, rating: 4.6, reviews: 144, stock: 10, colours: ["blue", "white"], sizes: ["Small", "Large"], shape: "vase", blurb: "A wheel-thrown vase with a satin glaze. Small 18 cm, Large 30 cm." },
  { id: "candle-beeswax", name: "Beeswax Candle", category: "decor", price: 11.0, rating: 4.7, reviews: 402, stock: 50, colours: [], sizes: [], shape: "candle", base: "honey", blurb: "A hand-poured pillar of pure beeswax with a gentle honey scent." },
  { id: "mirror-round", name: "Round Wall Mirror", category: "decor", price: 95.0, rating: 4.4, reviews: 77, stock: 5, colours: [], sizes: [], shape: "mirror", base: "brass", blurb: "A 60 cm round mirror in a thin brushed-brass frame." },
  { id: "clock-wall", name: "Wall Clock", category: "decor", price: 48.0, rating: 3.8, reviews: 39, stock: 0, colours: [], sizes: [], shape: "clock", base: "white", blurb: "A silent-sweep wall clock with a birch face." },
  { id: "planter-terracotta", name: "Terracotta Planter", category: "decor", price: 19.0, rating: 4.1, reviews: 210, stock: 22, colours: [], sizes: ["Small", "Medium", "Large"], shape: "planter", base: "terracotta", blurb: "An unglazed terracotta pot with a drainage hole and saucer." },
  { id: "stool-oak", name: "Oak Step Stool", category: "furniture", price: 79.0, rating: 4.5, reviews: 64, stock: 6, colours: [], sizes: [], shape: "stool", base: "oak", blurb: "A sturdy two-step stool that doubles as a plant stand." },
  { id: "shelf-floating", name: "Floating Wall Shelf", category: "furniture", price: 45.0, rating: 4.0, reviews: 120, stock: 14, colours: ["oak", "walnut", "white"], sizes: [], shape: "shelf", blurb: "An 80 cm shelf with concealed brackets. Holds up to 15 kg." },
  { id: "chair-lounge", name: "Lounge Chair", category: "furniture", price: 349.0, rating: 4.9, reviews: 52, stock: 2, colours: ["green", "grey"], sizes: [], shape: "chair", blurb: "A low, deep lounge chair in boucle fabric on solid ash legs." },
  { id: "table-side", name: "Marble Side Table", category: "furniture", price: 159.0, rating: 4.3, reviews: 33, stock: 0, colours: [], sizes: [], shape: "table", base: "marble", blurb: "A round side table with a honed marble top on a slim steel base." },
  { id: "towel-bath", name: "Waffle Bath Towel", category: "bath", price: 26.0, rating: 4.6, reviews: 301, stock: 18, colours: ["white", "sage", "sand"], sizes: [], shape: "towel", blurb: "A light, quick-drying waffle-weave towel, 70x140 cm." },
  { id: "soap-dish", name: "Stone Soap Dish", category: "bath", price: 14.5, rating: 4.2, reviews: 88, stock: 16, colours: [], sizes: [], shape: "dish", base: "slate", blurb: "A carved stone dish with drainage grooves." },
  { id: "basket-seagrass", name: "Seagrass Laundry Basket", category: "bath", price: 54.0, rating: 4.4, reviews: 71, stock: 7, colours: [], sizes: [], shape: "basket", base: "seagrass", blurb: "A lidded, hand-woven basket with rope handles." }
];

var SHIPPING = [
  { id: "standard", name: "Standard delivery", detail: "3-5 working days", cost: 4.95 },
  { id: "express", name: "Express delivery", detail: "next working day", cost: 12.0 },
  { id: "pickup", name: "Store pickup", detail: "collect from our Leeds store", cost: 0 }
];

// Coupon rules. kind: percent (off the subtotal) or freeship; min = minimum subtotal.
var COUPONS = {
  HOME10: { kind: "percent", value: 10, min: 0, label: "10% off your items" },
  SPRING15: { kind: "percent", value: 15, min: 100, label: "15% off orders of $100 or more" },
  FREESHIP: { kind: "freeship", value: 0, min: 40, label: "free delivery on orders of $40 or more" },
  WINTER20: { kind: "expired", value: 20, min: 0, expired: "2026-02-28" }
};

var COUNTRIES = ["United States", "United Kingdom", "Canada", "Ireland", "Australia", "Germany", "France", "Netherlands"];

// The tokenizer test corpus: every script class, emoji, whitespace runs, digits, code,
// contractions and special-token strings inside text. Shared by the reference writer and
// the node test.
export const CORPUS = [
  'Hello world',
  'Héllo wörld, ça va? Ångström naïve façade résumé',
  'Ich heiße Jürgen und wohne in Köln. ÆØÅ æøå ß ẞ',
  'Привет, как дела? Съешь же ещё этих мягких французских булок.',
  'Γειά σου Κόσμε! Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.',
  '你好，世界！我们今天去公园吧。漢字かなカナ 한국어 텍스트입니다',
  'مرحبا بالعالم! هذا نص عربي ١٢٣٤٥',
  'שלום עולם, זה טקסט בעברית',
  'नमस्ते दुनिया। यह हिंदी पाठ है १२३',
  'สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่าง',
  'Emoji 😀😃 👍🏽 👩‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ 🇫🇷🇯🇵',
  'Combining: e\u0301 a\u0308 n\u0303 \u1e9b\u0323 A\u030a Q\u0307\u0323 \u0915\u093c',
  'Hangul jamo: \u1100\u1161\u11a8 \u1112\u1161\u11ab',
  'tabs\tand\t\ttabs\nnew\n\nlines\r\nwindows\r\n\r\n  end  ',
  'ideographic\u3000space and\u00a0nbsp\u2003em\u2009thin',
  '   leading and trailing   ',
  '\n\n\n',
  ' ',
  '',
  '1 12 123 1234 12345 1234567890 3.14159 1,000,000 0x1F -42',
  "def f(x):\n    return x**2 + 1  # comment\n\nif __name__ == '__main__':\n\tprint(f(3))",
  'for (int i = 0; i < n; ++i) { sum += a[i]; } // C++ {}[]()<>!=&&||',
  '<div class="x">&amp; &lt;tag&gt;</div> https://example.com/path?q=1&r=2',
  "I'm he's she'd we'll they've you're it's DON'T I'M HE'S WE'LL THEY'VE YOU'RE IT'D",
  "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'VE 'M 'LL 'D 'x",
  'Text with <|endoftext|> and <|im_start|>user\nhi<|im_end|> inside',
  'Llama <|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nhi<|eot_id|>',
  '<think>\nreasoning\n</think>\n\nanswer',
  'Mixed123abc ABC123 abc_def-ghi.jkl @user #tag $100 50% ~tilde `code`',
  '!!! ??? ... --- *** ___ ||| ;;; ::: """ \'\'\'',
  'Ω≈ç√∫˜µ≤≥÷ ¡™£¢∞§¶•ªº –— ‘’“” …',
  '\u0085next line\u2028line sep\u2029para \ufeffbom \u200bzwsp \u200dzwj',
  'ﬁ ﬂ ①②③ ² ³ ½ Ⅻ ℃ ㎏ ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３',
  'Ελληνικά ΕΛΛΗΝΙΚΆ ελληνικά — Ǆ ǅ ǆ İstanbul ıi',
];

// Seeded random strings over the characters the pre-tokenizer regexes treat differently
// (letters of several scripts, digits, apostrophes, whitespace kinds, newlines, marks,
// emoji parts, special-token fragments), to reach alternation edge cases the fixed lines miss.
const POOL = [
  'a', 'Z', 'é', 'ß', 'Ж', 'ω', '中', 'の', '한', 'ع', 'ש', 'क', '\u093f', 'ก', '\u0e31', '0', '7', '٣', '½', 'Ⅻ',
  "'", "'s", "'S", "'ll", "'Re", 'ſ', ' ', '  ', '\t', '\n', '\r\n', '\r', '\u3000', '\u00a0', '\u2009', '\u0085',
  '\u0301', '\u0308', '\u200d', '\ufe0f', '😀', '👍', '🏽', '🇫', '.', ',', '!', '?', '-', '_', '(', ')', '{', '}',
  '"', '#', '$', '%', '&', '*', '+', '/', '<', '>', '<|', '|>', '<|im_end|>', '<|eot_id|>', 'the', ' the', 'ing',
];
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(20261203);
for (let i = 0; i < 300; ++i) {
  let s = '';
  const n = 1 + Math.floor(rand() * 24);
  for (let k = 0; k < n; ++k) s += POOL[Math.floor(rand() * POOL.length)];
  CORPUS.push(s);
}

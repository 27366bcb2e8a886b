#!/usr/bin/env python3
"""Record what Python's `re` and `random` do on constructed inputs, so the suite can check
src/pycompat/regex.ts and src/pycompat/random.ts against Python without Python.

Writes test/fixtures/pycompat/golden.json:
  regex:     [{pattern, flags, input, groups, findall, sub} | {pattern, flags, error: {type, msg, pos}}]
             (findall tuples as lists; sub is re.sub(pattern, '', input))
  templates: [{pattern, input, repl, result} | {pattern, input, repl, error}]: re.sub with a template
  classes:   code-point ranges [lo, hi] of \\w, \\d, \\s, and of the characters unassigned in
             Python's Unicode tables (unicodedata.category == 'Cn')
  random:    per seed, one random.Random(seed) drawn in the order listed (big ints as strings)
Usage: python3 scripts/pycompat-golden.py  (Python 3.11)
"""
import json
import os
import random
import re
import sys
import unicodedata
import warnings

OUT = os.path.join(os.path.dirname(__file__), '..', 'test', 'fixtures', 'pycompat', 'golden.json')

UNICODE_TEXT = 'café Ø ٣٤ ５６ x\x85y\u00a0z\ufeffw\x1cv 東京 😀𝟙𝐀 end\n'

# (pattern, inputs) in str-pattern, default-flag Python; '(?i)'-style flags are in the patterns.
REGEX = [
    # inline global flags
    (r'(?i)abc', ['ABC abc AbC aBx']),
    (r'(?s)a.b', ['a\nb a b']),
    (r'(?m)^\w+', ['one\ntwo\r\nthree']),
    (r'(?m)\w+$', ['one\ntwo\r\nthree\n', 'a\rb\u2028c\x85d']),
    ('(?x) \\d+ # digits\n [a-z]', ['12a 3 b 45c']),
    (r'(?x)[ #]a\ b\#c', [' a b#c#a b#c']),
    ('(?x)a#\\\nb', ['ab', 'a']),
    (r'(?a)\w+', ['café naïve ٣٤ x_1']),
    (r'(?is)A.B', ['a\nb A\rB']),
    (r'(?im)^x', ['X\nx\nab']),
    (r'(?u)\w+', ['é ü']),
    (r'(?i)(?s)a.', ['A\na\r']),
    (r'(?#comment)(?i)a', ['aA']),
    ('(?x)  (?i) a', ['aA']),
    (r'(?ax)\w + \d', ['é1 a 1 a1']),
    # . and newlines
    (r'a.b', ['a\nb a\rb a\u2028b a\u2029b a\x85b a😀b']),
    (r'.', ['😀\n𝐀é']),
    (r'(?s).', ['😀\n']),
    (r'.', ['a\ud800b']),
    (r'\W', ['\udc00x']),
    (r'[\ud800-\udbff]+', ['a\ud800b\udbffc']),
    (r'.+', ['line1\nline2\n', '']),
    # anchors
    (r'^a', ['a\na']),
    (r'a$', ['a\na\n', 'a\n\n', 'a\r\n', 'a']),
    (r'$', ['a\n', '', 'a\n\n']),
    (r'^$', ['', '\n', 'a']),
    (r'(?m)^$', ['a\n\nb\n']),
    (r'(?m)^', ['a\nb\n']),
    (r'(?m)$', ['a\nb\n']),
    (r'(?m)a$', ['a\u2028a\x85a\ra\na']),
    (r'\Aa', ['aa', 'ba']),
    (r'a\Z', ['a\na\n', 'a\na']),
    (r'\d\Z', ['1\n', '12']),
    # \d \w \s and their complements, Unicode and ASCII
    (r'\d+', ['x٣٤5５６ ⅷ ² ௧௨ 𝟙']),
    (r'\D+', ['x٣٤5５６ ⅷ ² ௧௨']),
    (r'\w+', ['café_Ø 東京 ٣ ½ ² Ⅻ é\u0301 😀 a-b 𝐀𝐁 𝟙𝟚 𠀀 ǅ']),
    (r'\W+', ['café_Ø 東京 ٣ ½ ² Ⅻ é\u0301 😀 a-b']),
    (r'\s+', ['a\x1cb\x1dc\x1ed\x1fe\x85f\xa0g\ufeffh\u200bi\u3000j\u2028k\tl\x0bm\x0cn']),
    (r'\S+', ['a\x1cb\x85c\ufeffd\u200be f']),
    (r'[\d.]+', ['٣.٤ 1.5 ５.']),
    (r'[\w-]+', ['foo-bar_é baz ٣-٤']),
    (r'[^\W\d]+', ['ab12cd٣é_']),
    (r'[\s,]+', ['a, b,\x85c\ufeffd']),
    (r'[\D5]+', ['a5b6٣c']),
    (r'[^\s]+', ['a b\x1cc']),
    (r'[^\S\n]+', ['a \t\nb\x85\n']),
    (r'[\W\d]+', ['ab, 12 c']),
    (r'[^a\W]+', ['abc, bad']),
    (r'(?a)\s+', ['a\x1cb\x85c d\te']),
    (r'(?a)\d+', ['٣12５']),
    (r'(?a)[\w]+', ['aé_1']),
    (r'(?a)\W+', ['aé_1 b']),
    (r'\b\w+\b', ['héllo wörld, ٣٤! _x_']),
    (r'\bé', ['é aé']),
    (r'\B\w', ['ab cd é']),
    (r'\b', ['', 'a', 'ab cd', 'é😀é']),
    (r'\B', ['', ' ', 'ab', 'a b']),
    (r'(?a)\b\w+\b', ['héllo']),
    (r'(?a)\B', ['é']),
    # escapes
    ('\\,\\-\\\'\\"\\ \\#\\%\\@\\~\\<\\>\\=\\!\\:\\&\\/\\;\\`', [',-\'" #%@~<>=!:&/;`']),
    (r'[\,\-\'\"\ \#]+', ['a,-\'" #b']),
    (r'\é\Ø', ['éØ']),
    (r'\n\t\r\f\v\a\0', ['\n\t\r\f\v\a\0']),
    (r'\012\101\x41\u00e9\U0001F600', ['\nAAé😀']),
    (r'[\x41-\x43]+', ['ABCD']),
    (r'[\u00e0-\u00ff]+', ['àéÿĀ']),
    (r'[\101-\103\0]+', ['ABC\0D']),
    (r'[\b]', ['a\bb']),
    (r'(a)\1', ['aaa']),
    (r'(\w)\1', ['aabbcdéé']),
    (r'(?P<q>[\'"]).*?(?P=q)', ['say "hi" and \'yo\'']),
    (r'(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10', ['abcdefghijj']),
    (r'(\d)\1\1', ['111 222 12']),
    (r'(a)\1{2}', ['aaaa']),
    (r'(a)\1 0', ['aa 0']),
    (r'\$\d', ['$5']),
    (r'\\\\', ['a\\\\b']),
    # groups
    (r'(?P<year>\d{4})-(?P<mon>\d\d)', ['2024-05 1999-12']),
    (r'(?:ab)+', ['ababab abx']),
    (r'(?=a)\w', ['ab']),
    (r'(?!a)\w', ['ab']),
    (r'(?<=\$)\d+', ['$5 6 $78']),
    (r'(?<!\$)\b\d+', ['$5 6']),
    (r'(?<=(a))b', ['ab cb']),
    (r'(?<=ab|cd)e', ['abe cde xe']),
    (r'(a)(?<=\1)', ['aa']),
    (r'a(?#comment)b', ['ab']),
    (r'a(?#x)*', ['aaa']),
    (r'(?P<é>a)(?P=é)', ['aa']),
    (r'(a)|b', ['ab']),
    (r'(a)|(b)', ['ab']),
    (r'()', ['ab']),
    (r'(?=)', ['ab']),
    (r'(a*)*', ['b', 'aab']),
    (r'(a|)*', ['b']),
    (r'(a*)+', ['b']),
    (r'(a|b)*', ['ab']),
    (r'((a)|b)+', ['ab']),
    (r'(a)?b\1', ['b', 'aba']),
    # character classes
    (r'[]a]+', ['a]b']),
    (r'[^]a]+', ['a]bc']),
    (r'[a-]+', ['a-b']),
    (r'[-a]+', ['a-b']),
    (r'[a\-z]+', ['a-z b']),
    (r'[[]+', ['a[b']),
    (r'[a[b]+', ['a[bc']),
    (r'[a-z&&b]+', ['a&b']),
    (r'[\]]+', [']]']),
    (r'[\\]', ['a\\b']),
    (r'[é-ü]+', ['éëüa']),
    (r'[😀-😂]+', ['😀😁😂😃']),
    (r'[.]', ['a.b']),
    (r'[$^]+', ['^$a']),
    (r'[|()*+?{}/]+', ['a|()*+?{}/b']),
    (r'[^a]', ['a\nb']),
    (r'[]-a]+', ['^_`az']),
    # quantifiers
    (r'a{2}', ['aaaaa']),
    (r'a{2,}', ['aaaaa a']),
    (r'a{,2}', ['aaaaa']),
    (r'a{,}', ['aa']),
    (r'a{}', ['a{}']),
    (r'a{x}', ['a{x}']),
    (r'a{1,2', ['a{1,2']),
    (r'a{ 1}', ['a{ 1}']),
    (r'x{0}', ['x']),
    (r'(?x)a{2, 1}', ['a{2,1}']),
    (r'a{3}?', ['aaaa']),
    (r'a+?', ['aaa']),
    (r'a*?', ['aa']),
    (r'a??', ['aa']),
    (r'(?:a|b)*?c', ['abc']),
    (r'(?=a)*', ['a']),
    (r'(?=a)+a', ['a']),
    (r'(?<=a)?b', ['ab b']),
    ('}', ['}']),
    # empty matches in findall and sub
    (r'a*', ['baaa c', '']),
    (r'x*', ['', 'abc']),
    (r'|a', ['a']),
    (r'a|', ['a']),
    (r'(?=b)|b', ['ab']),
    (r'(?:)', ['ab']),
    (r'\b|a', ['a']),
    (r'(a|)', ['ab']),
    (r'x*', ['😀é']),
    (r'x??y?', ['yxy']),
    (r'(?:a|)+?b', ['aab b']),
    (r'(?<=a)|b', ['ab']),
    # case-insensitive matching
    (r'(?i)straße', ['STRASSE straße STRAẞE']),
    (r'(?i)[a-z]+', ['İıſKÉ']),
    (r'(?i)k', ['kK\u212a']),
    (r'(?i)σ', ['Σσς']),
    (r'(?i)µ', ['µμΜ']),
    (r'(?i)é', ['É']),
    (r'(?i)i', ['iIİı']),
    (r'(?i)ı', ['iIİı']),
    (r'(?i)[^i]', ['iIİıx']),
    (r'(?i)[h-j]+', ['HİıJ']),
    (r'(?i)ǅ', ['Ǆǅǆ']),
    (r'(?i)[^\W\d]+', ['Ab1']),
    (r'(?i)(a)\1', ['aA']),
    (r'(?i)(i)\1', ['iİ iI']),
    (r'(?ai)é', ['éÉ']),
    (r'(?ai)[a-z]+', ['aBſK']),
    (r'(?ai)[^a]+', ['aAſ']),
    (r'(?ai)\w+', ['aſK']),
    (r'(?ai)k', ['kK\u212a']),
    (r'(?i)\w', ['\u0345']),
    # lm-evaluation-harness task patterns
    (r'#### (\-?[0-9\.\,]+)', ['Janet has 3.\n#### 18', '#### -1,234.50\n', 'no answer', '#### 5\n#### 6', '####  7']),
    (r'(-?[$0-9.,]{2,})|(-?[0-9]+)', ['The answer is $1,234.56.', 'so 7 apples', 'x -3 and -45', '', '٣٤ and 12']),
    (r'(?s).*#### ', ['Step 1\nStep 2\n#### 42', 'a #### b #### c', 'none']),
    (r'\.$', ['42.', '42.\n', '4.2', '42.\n\n']),
    (r',', ['1,234,567']),
    (r'\$', ['$100 $']),
    (r'(?i)\b\(?([A-D])\)?\b', ['The answer is (B).', 'answer: c', 'A) foo', 'ABCD', 'é(A)é', 'Ä(b)']),
    (r'\\boxed\{([^{}]*)\}', ['\\boxed{42}', '$\\boxed{\\frac{1}{2}}$', 'boxed{1}', '\\boxed{} \\boxed{x}']),
    (r'(?i)answer\s*(?:is|:)\s*\(?([A-D])\)?', ['The ANSWER IS (d)', 'answer:\u00a0b', 'Answer\u3000is C', 'answer\ufeffis A']),
    (r'(-?\d+)', ['x = -12, y = ٣٤, z = 5５', '']),
    (r'(?i)the answer is (.+?)\.?$', ['The answer is 42.\n', 'the answer is x']),
    # every pattern above on mixed Unicode text
    (r'\w+|\d+|\s+', [UNICODE_TEXT]),
    (r'[^\w\s]+', [UNICODE_TEXT]),
    (r'\b', [UNICODE_TEXT]),
    (r'.$', [UNICODE_TEXT]),
]

# Patterns Python rejects (re.error or OverflowError).
INVALID = [
    r'a(?i)b', r'(?i', r'(?L)a', r'(?au)a', r'(?z)a', r'(?iz)a', r'(?i-', '(?', r'(?P', r'(?Px)', r'(?<x)',
    r'\q', r'\e', r'\z', r'\G', r'\k', r'\p{L}', r'\1', r'(a\1)', r'\x4', r'\u12', r'\U00110000', r'\400',
    '[\\9]', r'[\A]', r'[\z]', 'a\\', r'(a)\2', r'(?P<n>a)(?P<n>b)', r'(?P<1a>x)', r'(?P=x)', r'(?P<a>a(?P=a))',
    r'(?<n>a)', r'(?<=a|bc)d', r'(?<=\d+)', r'(?<!a*)b', r'(?<=(a)\1)', '(?#unterminated', r'[z-a]', r'[\d-z]',
    r'[a-\d]', r'[a', r'[]', r'[^]', r'x{2,1}', r'a**', r'*a', r'a|*', r'{1}', r'a{1}{2}', r'^*', r'\b+',
    r'(?i-i:a)', r'(?-a:x)', r'(?t:a)', r'(?-t:a)', r'(?-:a)', r'(?-i', r'(?-iz:a)', r'(?i-1:a)', '(?i\\)',
    r'(', r')', r'a)', r'(?P<>a)', r'(?P<a', r'a{4294967295}', r'a{1,4294967296}',
]

# Valid in Python, refused by regex.ts (Python's results recorded all the same).
UNSUPPORTED = [
    (r'(?i:a)b', 'aB'), (r'(?-i:a)', 'a'), (r'(?>a+)b', 'aab'), (r'a*+', 'aa'), (r'a++', 'aa'), (r'a?+', 'a'),
    (r'a{1,2}+', 'aa'), (r'(a)?(?(1)b|c)', 'ab c'), (r'\N{DIGIT ONE}', '1'), (r'[\N{DIGIT ONE}]', '1'),
    (r'(?ai)(a)\1', 'aA'), (r'(?t)a', 'a'),
]

TEMPLATES = [
    (r'(\w+)@(\w+)', 'me@host you@there', r'\2 at \1'),
    (r'a', 'xax', r'\g<0>!'),
    (r'(?P<x>a)', 'xax', r'[\g<x>\g<1>]'),
    (r'(a)|b', 'ab', r'[\1]'),
    (r'a', 'a', '\\n\\t\\\\'),
    (r'a', 'a', r'\-\é'),
    (r'a', 'a', r'\0\101\08'),
    (r'(a)', 'a', r'\g<01>'),
    (r'(a)', 'a', r'\10'),
    (r'(a)', 'a', r'\q'),
    (r'(a)', 'a', r'\2'),
    (r'(a)', 'a', r'\g<y>'),
    (r'(a)', 'a', r'\g<-1>'),
    (r'(a)', 'a', r'\g<1'),
    (r'(a)', 'a', 'x\\'),
    (r'a*', 'baaac', '-'),
    (r'(a)', 'a', '$1 $& $$'),
]

SEEDS = [0, 1, 42, 1234, 3407, 2**32 + 5, 2**70, -7]


def error(e):
    if isinstance(e, re.error):
        return {'type': 'error', 'msg': e.msg, 'pos': e.pos}
    return {'type': type(e).__name__, 'msg': str(e), 'pos': None}


def findall(p, s):
    return [list(m) if isinstance(m, tuple) else m for m in p.findall(s)]


def regex_cases():
    cases = []
    for pattern, inputs in REGEX:
        for s in inputs:
            p = re.compile(pattern)
            cases.append({'pattern': pattern, 'flags': '', 'input': s, 'groups': p.groups,
                          'findall': findall(p, s), 'sub': p.sub('', s)})
    p = re.compile('abc|é', re.IGNORECASE)
    cases.append({'pattern': 'abc|é', 'flags': 'i', 'input': 'ABC É', 'groups': 0,
                  'findall': findall(p, 'ABC É'), 'sub': p.sub('', 'ABC É')})
    for pattern in INVALID:
        try:
            re.compile(pattern)
        except (re.error, OverflowError) as e:
            cases.append({'pattern': pattern, 'flags': '', 'error': error(e)})
        else:
            sys.exit(f'expected an error: {pattern!r}')
    return cases


def unsupported_cases():
    out = []
    for pattern, s in UNSUPPORTED:
        p = re.compile(pattern)
        out.append({'pattern': pattern, 'input': s, 'findall': findall(p, s), 'sub': p.sub('', s)})
    return out


def template_cases():
    out = []
    for pattern, s, repl in TEMPLATES:
        case = {'pattern': pattern, 'input': s, 'repl': repl}
        try:
            case['result'] = re.sub(pattern, repl, s)
        except (re.error, IndexError) as e:
            case['error'] = error(e)
        out.append(case)
    return out


def ranges(test):
    out = []
    start = None
    for cp in range(0x110001):
        inside = cp < 0x110000 and test(cp)
        if inside and start is None:
            start = cp
        elif not inside and start is not None:
            out.append([start, cp - 1])
            start = None
    return out


def classes():
    out = {name: ranges(lambda cp, r=re.compile('\\' + name): r.match(chr(cp)) is not None) for name in 'wds'}
    out['unassigned'] = ranges(lambda cp: unicodedata.category(chr(cp)) == 'Cn')
    return out


def random_case(seed):
    r = random.Random(seed)
    case = {'seed': str(seed)}
    case['random'] = [r.random() for _ in range(20)]
    case['getrandbits'] = [[k, str(r.getrandbits(k))] for k in (1, 7, 32, 33, 64, 100, 0)]
    case['randbelow4'] = [r._randbelow(4) for _ in range(5)]
    case['randbelow_big'] = [[n, r._randbelow(n)] for n in (2**32, 2**32 + 1, 10**15, 2**53)]
    x = list(range(10))
    r.shuffle(x)
    case['shuffle10'] = x
    case['sample_4_4'] = r.sample(range(4), 4)
    case['sample_50_10'] = r.sample(range(50), 10)
    case['sample_100_10'] = r.sample(range(100), 10)
    case['sample_1000_30'] = r.sample(range(1000), 30)
    case['randint_1_6'] = [r.randint(1, 6) for _ in range(10)]
    case['randrange'] = [r.randrange(10), r.randrange(5, 8), r.randrange(-3, 3), r.randrange(2**40)]
    case['choice'] = r.choice(['a', 'b', 'c', 'd', 'e'])
    case['random_after'] = r.random()
    return case


def main():
    warnings.simplefilter('ignore', FutureWarning)  # '[[' and '&&' in class patterns
    warnings.simplefilter('ignore', DeprecationWarning)  # (?t)
    golden = {
        'python': sys.version.split()[0],
        'unicode': unicodedata.unidata_version,
        'regex': regex_cases(),
        'unsupported': unsupported_cases(),
        'templates': template_cases(),
        'classes': classes(),
        'random': [random_case(seed) for seed in SEEDS],
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, 'w', encoding='utf-8') as f:
        json.dump(golden, f, ensure_ascii=True, indent=None, separators=(',', ':'))
        f.write('\n')
    print(f'wrote {OUT}: {len(golden["regex"])} regex cases, {len(golden["templates"])} templates, {len(SEEDS)} seeds')


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Writes src/main/java/dev/deja/model/haproxy/KeywordList.java: the keywords of HAProxy's global and
proxy sections (defaults, frontend, listen, backend), with the first release whose manual or source
knows them. deja notes a directive whose keyword is in none of them: haproxy refuses such a file
("unknown keyword 'x' in 'frontend' section", a fatal error in every version).

Sources, for each release tag v2.0.0 ... v3.4.0 of https://github.com/haproxy/haproxy:
  - doc/configuration.txt, section 3 (global parameters: every entry line of 3.1 onwards),
    section 4.1 (the proxy keywords matrix) and section 4.2 (the alphabetical proxy keyword
    reference: every entry line, "option httplog", "timeout client", "no option ...");
  - the keywords registered in the source for the global and proxy sections
    ({ CFG_GLOBAL, "name", ... } and { CFG_LISTEN, "name", ... } in src/*.c and addons/), which the
    manual may leave out (tune.vars.check-max-size in 2.6).
Keywords HAProxy reads only to refuse them (reqadd, contimeout, nbproc...) are in
dev.deja.model.haproxy.RemovedKeywords, not here.

Usage: packaging/haproxy-keywords.py PATH-TO-A-CLONE-OF-haproxy > src/main/java/dev/deja/model/haproxy/KeywordList.java
(a Java class, not a resource: the model reads no files; run mvn spotless:apply after)
Run it when a new HAProxy release is out (add its tag to TAGS)."""
import re
import subprocess
import sys

TAGS = ['v2.0.0', 'v2.1.0', 'v2.2.0', 'v2.3.0', 'v2.4.0', 'v2.5.0', 'v2.6.0', 'v2.7.0', 'v2.8.0', 'v2.9.0',
        'v3.0.0', 'v3.1.0', 'v3.2.0', 'v3.3.0', 'v3.4.0']
WORD = re.compile(r'^[a-z0-9][a-z0-9._-]*$')


def keyword(line):
    """The keyword of an entry line: its leading words, up to the first argument ("<", "[", "{"...)."""
    words = []
    for w in line.split():
        if not WORD.match(w):
            break
        words.append(w)
    return ' '.join(words)


def heading(line):
    return bool(line) and line[0] not in ' \t-=' and not re.match(r'^\d+(\.\d+)*\.\s', line)


def entries(lines, a, b):
    """The entry lines of the manual between lines a and b: column-0 lines (with their indented
    continuation lines) after a blank line, followed by a description indented by two spaces (after
    one blank line when the entry line is continued)."""
    i = a
    while i < b:
        if heading(lines[i]) and (lines[i - 1].strip() == '' or heading(lines[i - 1])):
            heads = []
            j = i
            while j < b and (heading(lines[j]) or (heads and lines[j].startswith('    ') and lines[j].strip())):
                if heading(lines[j]):
                    heads.append(lines[j])
                j += 1
            if j + 1 < b and lines[j].strip() == '' and heads and lines[j - 1].startswith('    '):
                j += 1  # a blank line between a long entry line's continuation and its description
            if j < b and re.match(r'^  \S', lines[j]):
                yield from heads
            i = j
        else:
            i += 1


def manual(text):
    lines = text.split('\n')

    def last(pattern):  # the section itself, not its line in the table of contents
        hits = [i for i, l in enumerate(lines) if re.match(pattern, l)]
        return hits[-1] if hits else None

    g0, p0 = last(r'^3\.1\. Process management'), last(r'^4\. Proxies')
    m0, k0 = last(r'^4\.1\. Proxy keywords matrix'), last(r'^4\.2\. Alphabetically')
    s0 = min(x for x in (last(r'^4\.3\. '), last(r'^5\. Bind and server options')) if x and x > k0)
    glob = {keyword(h) for h in entries(lines, g0, p0)}
    proxy = {keyword(h) for h in entries(lines, k0 + 1, s0)}
    for line in lines[m0:k0]:
        m = re.match(r'^([a-z][a-z0-9._ -]*?)\s{2,}(\(\*\)\s+)?(?:\(deprecated\)\s+)?[X-]', line)
        if m:
            proxy.add(m.group(1).strip())
            if m.group(2):
                proxy.add('no ' + m.group(1).strip())
    return glob - {''}, proxy - {''}


def registered(repo, tag):
    out = subprocess.run(['git', '-C', repo, 'grep', '-h', '-o', '-E', r'\{ *CFG_(GLOBAL|LISTEN), *"[a-z0-9._-]+"',
                          tag, '--', 'src/*.c', 'addons/*'], capture_output=True, text=True).stdout
    glob, proxy = set(), set()
    for m in re.finditer(r'CFG_(GLOBAL|LISTEN), *"([^"]+)"', out):
        (glob if m.group(1) == 'GLOBAL' else proxy).add(m.group(2))
    return glob, proxy


def main():
    repo = sys.argv[1]
    first = {}
    for tag in TAGS:
        text = subprocess.run(['git', '-C', repo, 'show', tag + ':doc/configuration.txt'], capture_output=True,
                              text=True, errors='replace', check=True).stdout
        g, p = manual(text)
        rg, rp = registered(repo, tag)
        version = tag[1:].rsplit('.', 1)[0]
        for kind, names in (('global', g | rg), ('proxy', p | rp)):
            for n in names:
                first.setdefault((kind, n), version)
    out = ['package dev.deja.model.haproxy;', '', '/**',
           ' * HAProxy keywords of the global and proxy sections, each with the first release that knows it.',
           ' * Generated by packaging/haproxy-keywords.py from the manuals and sources of HAProxy '
           + TAGS[0][1:] + ' to ' + TAGS[-1][1:] + '; do not edit.', ' */',
           'final class KeywordList {', '    private KeywordList() {}', '']
    for kind in ('global', 'proxy'):
        out.append('    /** "keyword", "first release" pairs. */')
        out.append('    static final String[] ' + kind.upper() + ' = {')
        for (k, name), version in sorted(first.items()):
            if k == kind:
                out.append('        "' + name + '", "' + version + '",')
        out.append('    };')
        out.append('')
    out[-1] = '}'
    print('\n'.join(out))

if __name__ == '__main__':
    main()

import { matchCovers } from '../../clusters/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import { clusterFile, clusterLocation } from './cluster-location.js';

export const ruleShadowed: Rule = {
  id: 'clusters/rule-shadowed',
  severity: 'warning',
  scope: 'tree',
  description: 'no routing rule of a cluster profile is hidden behind an earlier rule that matches everything it matches',
  explanation:
    "Routing takes the first rule that matches. A rule whose every match field is absent from an earlier rule, or equal to it, or covered by the earlier rule's recipe glob, can never be chosen: its toolchain and flags are dead configuration, and whoever wrote it believes recipes run with them. Move the more specific rule above the general one, or remove it.",
  check: ({ head }) => {
    const out: Finding[] = [];
    for (const { profile } of head.clusters) {
      if (!profile) continue;
      profile.routing.forEach((rule, j) => {
        const i = profile.routing.findIndex((earlier, k) => k < j && matchCovers(earlier.match, rule.match));
        if (i < 0) return;
        const line = profile.source.locate(['routing', i, 'match']).line;
        out.push({
          ...clusterLocation(head, profile, ['routing', j, 'match']),
          message: `routing[${j}] can never match: routing[${i}] (line ${line}) comes first and matches everything it matches`,
          hint: `move routing[${j}] above routing[${i}] if it is the more specific rule, or remove it`,
          subjects: [subject.file(clusterFile(head, profile))],
        });
      });
    }
    return out;
  },
};

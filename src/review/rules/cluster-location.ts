import type { PathSegment } from '../../catalog/index.js';
import { formatPath } from '../../catalog/index.js';
import type { ClusterProfile } from '../../clusters/index.js';
import type { Finding } from '../rule.js';
import type { Tree } from '../tree.js';

/** Where a cluster profile's field is written, as a finding's location (the file as the tree displays it). */
export function clusterLocation(
  tree: Tree,
  profile: ClusterProfile,
  path: PathSegment[],
): Pick<Finding, 'file' | 'line' | 'col' | 'path'> {
  const pos = profile.source.locate(path);
  return { file: clusterFile(tree, profile), line: pos.line, col: pos.col, path: formatPath(path) };
}

export const clusterFile = (tree: Tree, profile: ClusterProfile): string => tree.snapshot.display(profile.source.file);

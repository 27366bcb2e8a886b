/**
 * Moving between views: the update the app hands its pages, and in-app links. Its own module so
 * that the imports go one way (the app imports its pages; pages and the filter bar import this).
 */
import type { MouseEvent, ReactNode } from 'react';
import { toUrl } from './lib/url-state.js';
import type { ViewState } from './lib/url-state.js';

export type Update = (change: Partial<ViewState>, options?: { replace?: boolean }) => void;

/** An in-app link: a real href (open in a new tab works), navigation without a reload. */
export function Link({
  view,
  to,
  update,
  children,
  className,
}: {
  view: ViewState;
  to: Partial<ViewState>;
  update: Update;
  children: ReactNode;
  className?: string;
}) {
  const href = toUrl({ ...view, ...to });
  const onClick = (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    update(to);
  };
  return (
    <a href={href} onClick={onClick} className={className}>
      {children}
    </a>
  );
}

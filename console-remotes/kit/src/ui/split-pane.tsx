import { useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { Box } from '@mantine/core';
import { usePanelSizes } from './layout-cookie.js';

const MIN = 30;
const MAX = 75;
const clamp = (value: number) => Math.min(MAX, Math.max(MIN, value));

/**
 * Two panels side by side with a draggable divider; the sizes (percent) are the layout cookie's
 * `id` entry, so the console (and a shared chat page) opens the way the user left it.
 */
export function SplitPane({ id, defaultLeft, left, right }: { id: string; defaultLeft: number; left: ReactNode; right: ReactNode }) {
  const [sizes, saveSizes] = usePanelSizes(id, [defaultLeft, 100 - defaultLeft]);
  const [dragging, setDragging] = useState<number | null>(null);
  const container = useRef<HTMLDivElement>(null);
  const leftSize = dragging ?? sizes[0] ?? defaultLeft;

  const positionOf = (event: PointerEvent) => {
    const rect = container.current?.getBoundingClientRect();
    return rect ? clamp(((event.clientX - rect.left) / rect.width) * 100) : leftSize;
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowLeft' ? -2 : event.key === 'ArrowRight' ? 2 : 0;
    if (!step) return;
    event.preventDefault();
    const next = clamp(leftSize + step);
    saveSizes([next, 100 - next]);
  };

  return (
    <Box ref={container} style={{ display: 'flex', height: '100%', minHeight: 0, userSelect: dragging === null ? undefined : 'none' }}>
      <Box style={{ width: `${leftSize}%`, minWidth: 0, height: '100%' }}>{left}</Box>
      <Box
        role="separator"
        aria-orientation="vertical"
        aria-valuenow={Math.round(leftSize)}
        aria-valuemin={MIN}
        aria-valuemax={MAX}
        aria-label="Resize panels"
        tabIndex={0}
        onKeyDown={onKeyDown}
        onPointerDown={(event) => {
          event.currentTarget.setPointerCapture(event.pointerId);
          setDragging(positionOf(event));
        }}
        onPointerMove={(event) => {
          if (dragging !== null) setDragging(positionOf(event));
        }}
        onPointerUp={(event) => {
          if (dragging === null) return;
          const next = positionOf(event);
          setDragging(null);
          saveSizes([next, 100 - next]);
        }}
        style={{ width: 12, flexShrink: 0, cursor: 'col-resize', display: 'flex', justifyContent: 'center', alignItems: 'center' }}
      >
        <Box
          style={{
            width: 4,
            height: 40,
            borderRadius: 4,
            background: dragging === null ? 'var(--mantine-color-default-border)' : 'var(--mantine-primary-color-filled)',
          }}
        />
      </Box>
      <Box style={{ flex: 1, minWidth: 0, height: '100%' }}>{right}</Box>
    </Box>
  );
}

import { Group, Text, ThemeIcon } from '@engram/console-kit';
import { IconBrain } from '@tabler/icons-react';

/** The mark and the word; `compact` drops the word on phones, where the header is narrow. */
export function Logo({ size = 'md', compact = false }: { size?: 'md' | 'lg'; compact?: boolean }) {
  return (
    <Group gap={8} wrap="nowrap">
      <ThemeIcon size={size === 'lg' ? 40 : 30} radius="md" variant="gradient" gradient={{ from: 'engram.5', to: 'grape.5', deg: 135 }}>
        <IconBrain size={size === 'lg' ? 24 : 18} stroke={1.8} />
      </ThemeIcon>
      <Text fw={750} fz={size === 'lg' ? 26 : 19} lts={-0.3} visibleFrom={compact ? 'sm' : undefined}>
        Engram
      </Text>
    </Group>
  );
}

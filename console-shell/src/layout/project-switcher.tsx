import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  Button,
  consoleApi,
  Group,
  Loader,
  Menu,
  queryKeys,
  Text,
  TextInput,
  useDebouncedValue,
  useMatch,
  useNavigate,
  type Project,
} from '@engram/console-kit';
import { IconCheck, IconFolder, IconLayoutGrid, IconSearch, IconSelector, IconStarFilled } from '@tabler/icons-react';

/** The project in the URL; switching keeps the area (e.g. agents) the user is in. */
export function ProjectSwitcher({ current }: { current: Project | null }) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 200);
  const [opened, setOpened] = useState(false);
  const navigate = useNavigate();
  const area = useMatch('/projects/:projectSlug/:area/*')?.params.area;
  const projects = useQuery({
    queryKey: [...queryKeys.projects(debounced), 'switcher'],
    queryFn: () => consoleApi.projects({ search: debounced || undefined, limit: 8 }),
    enabled: opened,
    placeholderData: keepPreviousData,
  });
  return (
    <Menu opened={opened} onChange={setOpened} width={280} position="bottom-start" withinPortal>
      <Menu.Target>
        <Button
          variant="subtle"
          color="gray"
          px="xs"
          rightSection={<IconSelector size={14} />}
          leftSection={<IconFolder size={16} />}
          aria-label="Switch project"
          styles={{ label: { maxWidth: 180, overflow: 'hidden', textOverflow: 'ellipsis' } }}
        >
          <Text fw={600} size="sm" truncate data-testid="current-project">
            {current?.name ?? '…'}
          </Text>
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <TextInput
          placeholder="Find a project"
          leftSection={<IconSearch size={14} />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          size="xs"
          mb={6}
          aria-label="Find a project"
        />
        {projects.isPending ? (
          <Group justify="center" p="sm">
            <Loader size="xs" />
          </Group>
        ) : (
          (projects.data?.projects ?? []).map((project) => (
            <Menu.Item
              key={project.id}
              leftSection={project.isFavorited ? <IconStarFilled size={14} color="var(--mantine-color-yellow-5)" /> : <IconFolder size={14} />}
              rightSection={project.id === current?.id ? <IconCheck size={14} /> : null}
              onClick={() => void navigate(`/projects/${project.slug}${area ? `/${area}` : ''}`)}
            >
              <Text size="sm" truncate>
                {project.name}
              </Text>
            </Menu.Item>
          ))
        )}
        {projects.data && projects.data.projects.length === 0 ? (
          <Text size="xs" c="dimmed" p="xs">
            No project matches.
          </Text>
        ) : null}
        <Menu.Divider />
        <Menu.Item leftSection={<IconLayoutGrid size={14} />} onClick={() => void navigate('/projects')}>
          All projects
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

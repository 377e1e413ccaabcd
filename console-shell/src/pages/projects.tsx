import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Button,
  Card,
  consoleApi,
  ErrorNotice,
  Group,
  Modal,
  PageHeader,
  Pager,
  queryKeys,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  TextInput,
  ThemeIcon,
  Tooltip,
  Link,
  useFormatters,
  useNavigate,
  useValidatedSubmit,
  type Project,
} from '@engram/console-kit';
import { IconFolder, IconFolderPlus, IconPlus, IconStar, IconStarFilled } from '@tabler/icons-react';
import { Permitted } from '../layout/access.js';
import { ModalForm } from '../layout/dialogs.js';
import { GettingStarted } from './getting-started.js';
import { SearchField, usePagedSearch } from './page-scaffold.js';

const PAGE_SIZE = 12;

function CreateProjectModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () => consoleApi.createProject({ name: name.trim() }),
    onSuccess: async (project) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.allProjects });
      setName('');
      onClose();
      void navigate(`/projects/${project.slug}`);
    },
  });
  const { errors, onSubmit } = useValidatedSubmit('project', { name }, () => create.mutate());
  return (
    <Modal opened={opened} onClose={onClose} title="Create a project" centered>
      <ModalForm onSubmit={onSubmit} mutation={create} failureTitle="The project was not created" submitLabel="Create project" onCancel={onClose}>
        <TextInput
          label="Project name"
          placeholder="Customer support agents"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
      </ModalForm>
    </Modal>
  );
}

function ProjectCard({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const format = useFormatters();
  const favorite = useMutation({
    mutationFn: () => consoleApi.favoriteProject(project.id, !project.isFavorited),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.allProjects }),
  });
  return (
    <Card withBorder radius="lg" padding="lg" component={Link} to={`/projects/${project.slug}`} style={{ textDecoration: 'none' }} data-testid="project-card">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
          <ThemeIcon variant="light" size={40} radius="md">
            <IconFolder size={22} />
          </ThemeIcon>
          <Stack gap={0} style={{ minWidth: 0 }}>
            <Text fw={600} truncate>
              {project.name}
            </Text>
            <Text size="xs" c="dimmed" ff="monospace" truncate>
              {project.slug}
            </Text>
          </Stack>
        </Group>
        <Tooltip label={project.isFavorited ? 'Remove from favorites' : 'Add to favorites'}>
          <ActionIcon
            variant="subtle"
            color={project.isFavorited ? 'yellow' : 'gray'}
            aria-label={project.isFavorited ? 'Remove from favorites' : 'Add to favorites'}
            loading={favorite.isPending}
            onClick={(event) => {
              event.preventDefault();
              favorite.mutate();
            }}
          >
            {project.isFavorited ? <IconStarFilled size={18} /> : <IconStar size={18} />}
          </ActionIcon>
        </Tooltip>
      </Group>
      <Text size="xs" c="dimmed" mt="md">
        Updated {format.relative(project.updatedAt)}
      </Text>
    </Card>
  );
}

export function ProjectsPage() {
  const { debounced, offset, setOffset, searchField } = usePagedSearch();
  const [creating, setCreating] = useState(false);
  const projects = useQuery({
    queryKey: [...queryKeys.projects(debounced), offset],
    queryFn: () => consoleApi.projects({ search: debounced || undefined, offset, limit: PAGE_SIZE }),
    placeholderData: keepPreviousData,
  });
  const list = [...(projects.data?.projects ?? [])].sort((a, b) => Number(b.isFavorited) - Number(a.isFavorited));

  return (
    <>
      <PageHeader
        title="Projects"
        description="Projects group agents, their tools and memory. Favorites come first."
        actions={
          <Permitted permission="create_projects" action="create projects">
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New project
            </Button>
          </Permitted>
        }
      />
      <GettingStarted />
      <SearchField {...searchField} placeholder="Search projects" label="Search projects" />
      {projects.error ? <ErrorNotice error={projects.error} onRetry={() => void projects.refetch()} /> : null}
      {projects.isPending ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {[0, 1, 2].map((index) => (
            <Skeleton key={index} h={116} radius="lg" />
          ))}
        </SimpleGrid>
      ) : list.length === 0 ? (
        <Card withBorder radius="lg" p="xl">
          <Stack align="center" gap="sm">
            <ThemeIcon size={48} radius="xl" variant="light">
              <IconFolderPlus size={26} />
            </ThemeIcon>
            <Text fw={600}>{debounced ? 'No project matches your search' : 'No projects yet'}</Text>
            <Text size="sm" c="dimmed" ta="center">
              {debounced ? 'Try another name.' : 'Create a project to start building agents.'}
            </Text>
            {!debounced ? (
              <Permitted permission="create_projects" action="create projects">
                <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
                  Create your first project
                </Button>
              </Permitted>
            ) : null}
          </Stack>
        </Card>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {list.map((project) => (
            <ProjectCard key={project.id} project={project} />
          ))}
        </SimpleGrid>
      )}
      <Pager offset={offset} limit={PAGE_SIZE} hasNextPage={projects.data?.hasNextPage ?? false} onChange={setOffset} />
      <CreateProjectModal opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}

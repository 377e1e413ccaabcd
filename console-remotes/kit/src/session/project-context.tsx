import { createContext, useContext } from 'react';
import type { Project } from '../api/console-types.js';

/** The project of the current `/projects/:projectSlug/…` URL, provided by the shell to every remote. */
export const ProjectContext = createContext<Project | null>(null);

export function useProject(): Project {
  const project = useContext(ProjectContext);
  if (!project) throw new Error('useProject() outside a project route');
  return project;
}

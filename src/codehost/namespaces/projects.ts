import type { Kysely, Selectable } from 'kysely';
import { ConstraintViolationError } from '../../platform/db/errors.js';
import type { CodehostTables, ProjectsTable, VisibilityLevel } from '../db/tables.js';
import { RecordInvalid } from '../record-invalid.js';
import type { NamespaceRow } from './groups.js';
import { ACCESS_LEVELS, visibilityName } from './levels.js';
import { isFullPathShaped, nameProblem, parameterize, pathProblem } from './paths.js';

export type ProjectRow = Selectable<ProjectsTable>;

export interface NewProject {
  /** At least one of name and path; each defaults from the other, as in GitLab. */
  name?: string;
  path?: string;
  namespace: NamespaceRow;
  description?: string;
  visibilityLevel?: VisibilityLevel;
}

export class ProjectStore {
  constructor(
    private readonly db: Kysely<CodehostTables>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates a project. In a personal namespace its creator becomes a master
   * member, as GitLab does; in a group, the group's members have access.
   */
  async create(input: NewProject, creatorId: number): Promise<ProjectRow> {
    const name = (input.name ?? input.path ?? '').trim();
    const path = (input.path ?? parameterize(name)).trim();
    const namespace = input.namespace;
    const visibilityLevel = input.visibilityLevel ?? 0;
    const errors: Record<string, string[]> = {};
    const nameError = nameProblem(name);
    if (nameError) errors.name = [nameError];
    const pathError = pathProblem(path);
    if (pathError) errors.path = [pathError];
    if (namespace.kind === 'group' && visibilityLevel > namespace.visibility_level) {
      errors.visibility_level = [
        `${visibilityName(visibilityLevel)} is not allowed in a ${visibilityName(namespace.visibility_level)} group.`,
      ];
    }
    if ((input.description ?? '').length > 2000) {
      errors.description = ['is too long (maximum is 2000 characters)'];
    }
    if (Object.keys(errors).length > 0) throw new RecordInvalid(errors);

    const fullPath = `${namespace.full_path}/${path}`;
    const now = this.now();
    try {
      return await this.db.transaction().execute(async (trx) => {
        const project = await trx
          .insertInto('projects')
          .values({
            namespace_id: namespace.id,
            name,
            path,
            full_path: fullPath,
            full_path_normalized: fullPath.toLowerCase(),
            description: input.description ?? '',
            visibility_level: visibilityLevel,
            creator_id: creatorId,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        if (namespace.kind === 'user') {
          await trx
            .insertInto('members')
            .values({
              user_id: creatorId,
              source_type: 'project',
              source_id: project.id,
              access_level: ACCESS_LEVELS.master,
              created_at: now,
              updated_at: now,
            })
            .execute();
        }
        return project;
      });
    } catch (error) {
      if (error instanceof ConstraintViolationError && error.kind === 'unique') {
        throw new RecordInvalid({ path: ['has already been taken'] });
      }
      throw error;
    }
  }

  async findByFullPath(fullPath: string): Promise<ProjectRow | undefined> {
    if (!isFullPathShaped(fullPath)) return undefined;
    return this.db
      .selectFrom('projects')
      .selectAll()
      .where('full_path_normalized', '=', fullPath.toLowerCase())
      .executeTakeFirst();
  }

  async findByIds(ids: readonly number[]): Promise<ProjectRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('projects').selectAll().where('id', 'in', ids).execute();
  }
}

import { component, type Component } from '../../component.ts';
import { ExtractError, type Extractor } from '../extractor.ts';
import { LOCKFILES } from '../../lockfiles.ts';

// Gradle dependency locking: one `group:artifact:version=configuration,…` line per module, `#`
// comments, and one `empty=…` line naming the configurations that resolve to nothing.

const MODULE_LINE = /^([^:=\s]+):([^:=\s]+):([^:=\s]+)=(.*)$/;

export const gradleLockfileExtractor: Extractor = {
  id: 'gradle-lockfile',
  ecosystem: 'Maven',
  docs: '`gradle.lockfile`',
  fileNames: LOCKFILES['gradle-lockfile'],
  lockfile: true,
  extract(file) {
    const components: Component[] = [];
    file.text.split(/\r?\n/).forEach((rawLine, index) => {
      const line = rawLine.trim();
      if (line === '' || line.startsWith('#') || line.startsWith('empty=')) return;
      const match = MODULE_LINE.exec(line);
      if (!match) throw new ExtractError(file.path, `line ${index + 1}: not a group:artifact:version=configurations entry`);
      const [, group, artifact, version, configurationList] = match;
      const configurations = configurationList.split(',').map((c) => c.trim()).filter(Boolean);
      components.push(
        component({
          name: `${group}:${artifact}`,
          version,
          ecosystem: 'Maven',
          direct: null,
          development: configurations.length > 0 && configurations.every(isTestConfiguration),
          sourceFile: file.path,
        }),
      );
    });
    return components;
  },
};

/** testCompileClasspath, testRuntimeClasspath, testFixturesRuntimeClasspath and the like. */
function isTestConfiguration(name: string): boolean {
  return name.startsWith('test');
}

import { useMemo } from 'react';
import { Diff, Hunk, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';

/** A unified diff, file by file, rendered by react-diff-view. */
export function DiffView({ diff }: { diff: string }) {
  const files = useMemo(() => {
    try {
      return parseDiff(diff, { nearbySequences: 'zip' });
    } catch {
      return null;
    }
  }, [diff]);
  if (!files) return <pre className="code">{diff}</pre>;
  return (
    <div className="diff-files">
      {files.map((file) => {
        const name = file.type === 'delete' ? file.oldPath : file.newPath;
        return (
          <section key={`${file.oldPath}→${file.newPath}`} className="diff-file" aria-label={`Changes to ${name}`}>
            <h3 className="diff-file-name mono">
              {file.type === 'rename' ? `${file.oldPath} → ${file.newPath}` : name}
              {file.type === 'add' ? ' (new file)' : file.type === 'delete' ? ' (deleted)' : ''}
            </h3>
            <Diff viewType="unified" diffType={file.type} hunks={file.hunks}>
              {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
            </Diff>
          </section>
        );
      })}
    </div>
  );
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalMavenVersion, compareMavenVersions } from '../../src/osv/maven-version.ts';
import { normalizeComposerVersion, SEMVER_SCHEME, versionScheme, type VersionScheme } from '../../src/osv/versions.ts';
import { ECOSYSTEMS, type Ecosystem } from '../../src/inventory/component.ts';

// Each ladder is strictly ascending in its ecosystem's order; every pair of rungs is checked both ways.
// Each group of equals must compare 0 with one another.

interface OrderingTable {
  ascending: string[];
  equal: string[][];
  invalid: string[];
}

const TABLES: Partial<Record<Ecosystem, OrderingTable>> = {
  npm: {
    ascending: ['0.0.1', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.2.0', '1.10.0', '2.0.0'],
    equal: [['1.0.0', 'v1.0.0', '1.0.0+build.5']],
    invalid: ['', '1.0', 'latest', 'file:../local', '^1.2.3', '01.2.3'],
  },
  'crates.io': {
    ascending: ['0.0.0-0', '0.0.0', '0.1.0', '0.7.3-alpha.1', '0.7.3', '0.8.0-rc.1', '0.8.0', '1.0.0'],
    equal: [['0.7.3', '0.7.3+build']],
    invalid: ['', '0.7', '*'],
  },
  Go: {
    ascending: [
      'v0.0.0-20191109021931-daa7c04131f5',
      'v0.0.0-20200101000000-abcdef123456',
      'v0.1.0',
      'v1.2.3',
      'v1.2.4-0.20191109021931-daa7c04131f5',
      'v1.2.4-rc.1',
      'v1.2.4',
      'v2.0.0+incompatible',
      'v20.10.10+incompatible',
      'v20.10.11-0.20211201000000-abcdef123456+incompatible',
      'v20.10.11+incompatible',
    ],
    // OSV writes Go versions without the `v`; `+incompatible` is build metadata and orders like its base.
    equal: [
      ['v1.2.3', '1.2.3'],
      ['v20.10.11+incompatible', '20.10.11', 'v20.10.11'],
    ],
    invalid: ['', 'v1.2', 'master', 'go1.21'],
  },
  Pub: {
    // Unlike SemVer 2.0, pub orders build metadata: a build comes after none, and builds compare like pre-releases.
    ascending: ['1.0.0-dev', '1.0.0-dev.2', '1.0.0', '1.0.0+1', '1.0.0+2', '1.0.0+10', '1.0.0+a', '1.0.1', '2.1.0', '2.1.0+1'],
    equal: [['1.0.0+2', '1.0.0+2']],
    invalid: ['', '1.0', 'any'],
  },
  PyPI: {
    ascending: ['0.9', '1.0.dev1', '1.0a1.dev1', '1.0a1', '1.0a2', '1.0b2', '1.0rc1', '1.0', '1.0+local', '1.0.post1.dev0', '1.0.post1', '1.0.post2', '1.1', '1!0.1'],
    equal: [
      ['1.0', '1.0.0', 'v1.0', '1.0.0.0'],
      ['1.0rc1', '1.0-RC1', '1.0c1'],
      ['1.0.post1', '1.0-1', '1.0post1'],
    ],
    invalid: ['', 'garbage', '1.0.x', '2.2-legacy-build'],
  },
  RubyGems: {
    ascending: ['0.9', '1.0.0.a', '1.0.0.alpha', '1.0.0.b', '1.0.0.pre', '1.0.0.pre.1', '1.0.0.pre.2', '1.0.0.rc1', '1.0.0', '1.0.1', '1.9', '1.10', '5.2.4.3.pre', '5.2.4.3', '6.0.0.alpha', '6.0.0.beta1', '6.0.0.rc1', '6.0.0'],
    equal: [['1.0', '1.0.0', '1']],
    invalid: ['', 'garbage', 'v1.0', '1..0', '1.0 beta'],
  },
  Maven: {
    ascending: [
      '1.0-alpha',
      '1.0-alpha-2',
      '1.0-beta',
      '1.0-milestone-1',
      '1.0-RC1',
      '1.0-RC2',
      '1.0-SNAPSHOT',
      '1.0',
      '1.0-sp',
      '1.0-sp1',
      '1.0.1',
      '1.1',
      '2.5.1-SNAPSHOT',
      '2.5.1',
      '3.0.0-alpha1',
      '3.0.0-RC1',
      '3.0.0',
      '4.1-RC1',
      '4.1',
      '4.1-sp1',
      '4.1.1',
      '10.0',
    ],
    equal: [
      ['1.0', '1.0.0', '1', '1.0.Final', '1.0-ga', '1.0.RELEASE'],
      ['1.0-RC1', '1.0-cr1', '1.0-rc-1'],
      ['1.0-alpha-2', '1.0-a2'],
    ],
    invalid: ['', '${project.version}', '[1.0,2.0)', '1.0 beta'],
  },
  Packagist: {
    ascending: ['0.9', '1.4.1', '1.4.2-dev', '1.4.2-alpha1', '1.4.2-beta1', '1.4.2-beta.2', '1.4.2-RC1', '1.4.2', '2.0.0-beta1', '2.0.5', '2.4.0', '2.4.0-p1', '2.4.0-p2', '2.4.1', '20230101'],
    equal: [
      ['1.4.2', 'v1.4.2', '1.4.2.0', '1.4.2+build.7', '1.4.2-stable'],
      ['2.4.0-p1', '2.4.0-patch1', '2.4.0-pl1', '2.4.0.p1'],
      ['1.4.2-beta1', '1.4.2-b1', '1.4.2-BETA1', '1.4.2beta1'],
    ],
    invalid: ['', 'dev-main', '1.x-dev', 'dev-feature/login', '1.2.3.4.5', 'latest'],
  },
  NuGet: {
    ascending: ['0.9.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.2.3', '1.2.3.4', '1.2.3.5', '1.2.4', '2.0.0-RC.2', '2.0.0-rc.10', '2.0.0'],
    equal: [
      ['1.0.0', '1.0', '1', '1.0.0.0', '1.00.0', '1.0.0+build'],
      ['2.0.0-RC.2', '2.0.0-rc.2', '2.0.0-Rc.2+sha.1'],
    ],
    invalid: ['', 'v1.0.0', '1.2.3.4.5', '[1.0,2.0)', '1.0.*'],
  },
  'GitHub Actions': {
    ascending: ['v1.0.0', 'v4.1.0', '4.1.1', 'v4.2.0', 'v41.0.0'],
    equal: [['v4.1.1', '4.1.1']],
    invalid: ['v4', 'main', '11bd71901bbe5b1630ceea73d27597364c9af683'],
  },
  Hex: {
    ascending: ['0.9.0', '1.7.0-rc.1', '1.7.0', '1.7.10', '1.14.0'],
    equal: [['1.7.10', '1.7.10+build']],
    invalid: ['', '1.7', '~> 1.7'],
  },
  SwiftURL: {
    ascending: ['1.0.0', '2.0.0-beta.1', '2.0.0', '2.62.0'],
    equal: [['2.62.0', 'v2.62.0']],
    invalid: ['', 'main'],
  },
  CocoaPods: {
    ascending: ['4.9.0', '5.0.0-beta.1', '5.0.0', '5.8.1'],
    equal: [['5.8.1', 'v5.8.1']],
    invalid: ['', '10.18'],
  },
  JSR: {
    ascending: ['0.224.0', '1.0.0-rc.1', '1.0.0', '1.0.8'],
    equal: [['1.0.8', '1.0.8+build']],
    invalid: ['', '1'],
  },
  ConanCenter: {
    ascending: ['1.2.11', '1.2.13', '1.3', '1.3.1', '3.1.4'],
    equal: [['1.3', '1.3.0']],
    invalid: ['', 'cci.20230101'],
  },
  CRAN: {
    ascending: ['0.9-1', '1.0.0', '1.1.3', '1.1.4', '2.0'],
    equal: [['1.1', '1.1.0']],
    invalid: ['', 'latest'],
  },
  conda: {
    ascending: ['1.21.0', '1.26.0rc1', '1.26.0', '1.26.4'],
    equal: [['1.26', '1.26.0']],
    invalid: ['', 'not a version'],
  },
  vcpkg: {
    ascending: ['1.2.11', '1.2.13', '1.3', '1.3.1'],
    equal: [['1.3', '1.3.0']],
    invalid: ['', 'latest'],
  },
};

function assertOrder(scheme: VersionScheme, lower: string, higher: string): void {
  assert.ok(scheme.compare(lower, higher) < 0, `${lower} < ${higher}`);
  assert.ok(scheme.compare(higher, lower) > 0, `${higher} > ${lower}`);
}

describe('version schemes', () => {
  test('every ecosystem has a scheme, and every scheme a ladder', () => {
    const laddered = new Set(Object.keys(TABLES).map((ecosystem) => versionScheme(ecosystem as Ecosystem)));
    for (const ecosystem of ECOSYSTEMS) {
      assert.ok(versionScheme(ecosystem), ecosystem);
      assert.ok(TABLES[ecosystem] || laddered.has(versionScheme(ecosystem)), `${ecosystem} orders versions in a way no ladder below checks`);
    }
  });

  // An ecosystem sharing another's scheme (a new one added with SEMVER_SCHEME) needs no ladder of its own.
  for (const ecosystem of ECOSYSTEMS.filter((e) => TABLES[e])) {
    const table = TABLES[ecosystem]!;
    const scheme = versionScheme(ecosystem);
    describe(ecosystem, () => {
      test('ascending versions are valid and ordered pairwise', () => {
        for (const v of table.ascending) assert.ok(scheme.isValid(v), `${v} is valid`);
        table.ascending.forEach((lower, i) => {
          for (const higher of table.ascending.slice(i + 1)) assertOrder(scheme, lower, higher);
          assert.equal(scheme.compare(lower, lower), 0, `${lower} = itself`);
        });
      });

      test('equivalent spellings compare equal', () => {
        for (const group of table.equal) {
          for (const a of group) {
            assert.ok(scheme.isValid(a), `${a} is valid`);
            for (const b of group) assert.equal(scheme.compare(a, b), 0, `${a} = ${b}`);
          }
        }
      });

      test('invalid versions are reported, never throw, and sort before valid ones', () => {
        for (const v of table.invalid) {
          assert.equal(scheme.isValid(v), false, `${JSON.stringify(v)} is invalid`);
          assert.ok(scheme.compare(v, table.ascending[0]) < 0, `${v} before valid versions`);
          assert.ok(scheme.compare(table.ascending[0], v) > 0);
          assert.equal(scheme.compare(v, v), 0);
        }
        const [a, b] = table.invalid.slice(-2);
        assert.equal(Math.sign(scheme.compare(a, b)), -Math.sign(scheme.compare(b, a)), 'invalid versions still order consistently');
      });

      test('sorting a shuffled ladder restores it', () => {
        const shuffled = [...table.ascending].reverse();
        shuffled.push(shuffled.shift()!);
        assert.deepEqual(shuffled.sort((a, b) => scheme.compare(a, b)), table.ascending);
      });
    });
  }
});

describe('SEMVER range scheme', () => {
  test('SemVer 2.0 precedence with an optional leading v, build metadata ignored', () => {
    const ladder = ['0.0.0-0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', 'v1.0.1', '2.0.0'];
    ladder.forEach((lower, i) => ladder.slice(i + 1).forEach((higher) => assertOrder(SEMVER_SCHEME, lower, higher)));
    assert.equal(SEMVER_SCHEME.compare('1.0.0+abc', 'v1.0.0'), 0);
  });

  test('non-SemVer versions are invalid', () => {
    for (const v of ['1.0', '1.0rc1', '1.0.0.0', 'a.b.c', '', '1.0.0-', '1.0.0-beta..1']) assert.equal(SEMVER_SCHEME.isValid(v), false, v);
    assert.doesNotThrow(() => SEMVER_SCHEME.compare('1.0rc1', '1.0.0'));
  });
});

// Maven's own ComparableVersion (maven-artifact 3.8.7, the same algorithm as 3.9.x) sorted these and printed
// their canonical forms: each row is [canonical form, ...versions it compares equal], rows in ascending order.
// Some rows show quirks kept on purpose: `1.0-final-1` is [1, [[1]]], below `1-1`; ten or more zeros make a
// long item, so `0000000000.1` sorts after every number of up to nine digits; any Unicode digit is a digit.
const MAVEN_LADDER: string[][] = [
  ['0.9', '0.9'],
  ['1-alpha', '1-alpha', '1.0-Alpha'],
  ['1-alpha-1', '1-alpha1', '1-alpha-1', '1-a1', '1a1', '1-ALPHA-1', '1-Alpha1'],
  ['1-alpha-2-snapshot', '1-alpha2snapshot'],
  ['1-alpha-2', '1-alpha-2'],
  ['1-alpha-10', '1-alpha-10'],
  ['1-beta', '1-beta'],
  ['1-beta-1', '1-b1'],
  ['1-beta-2', '1-beta-2'],
  ['1-beta-123', '1-beta123'],
  ['1-milestone-1', '1-m1'],
  ['1-milestone-2', '1-milestone-2'],
  ['1-milestone-11', '1-m11'],
  ['1-rc', '1-rc', '1-cr'],
  ['1-rc-1', '1-RC1', '1-cr1', '1-rc-1', '1.0.0.RC1', '1.0RC1', '1.0-rc-1', '1.0.RC1'],
  ['1-rc-2', '1-rc2', '1-CR-2', '1.0.0-RC2', '1.0-rc-2', '1.0.RC2'],
  ['1-rc-3', '1.0-RC3'],
  ['1-rc-123', '1-rc123'],
  ['1-snapshot', '1-SNAPSHOT', '1-snapshot', '1.0-SNAPSHOT'],
  ['1', '1', '1.0', '1.0.0', '1.0.0.0', '1-0', '1-ga', '1.ga', '1-final', '1.Final', '1-release', '1.RELEASE', '1GA'],
  ['1-sp', '1-sp', '1.sp', '1-SP'],
  ['1-sp-1', '1-sp1', '1-sp-1', '1.sp1'],
  ['1-sp-2', '1-sp2'],
  ['1-sp-123', '1-sp123'],
  ['1-sp.1', '1-sp.1'],
  ['1-a', '1-a'],
  ['1-abc', '1-abc'],
  ['1-abc-1', '1.0.0.abc1'],
  ['1-abc-2', '1.0.0-abc2'],
  ['1-def', '1-def'],
  ['1-foo', '1-foo', '1.foo', '1foo'],
  ['1-jre', '1-jre'],
  ['1-pom-1', '1-pom-1'],
  ['1-xyz', '1-xyz'],
  ['1-1', '1.0-final-1'],
  ['1-1-snapshot', '1-1-SNAPSHOT'],
  ['1-1', '1-1', '1.0-1', '1.0.0-1'],
  ['1-1-sp', '1-1.sp'],
  ['1-1-1', '1-1-1'],
  ['1-2', '1-2'],
  ['1-123', '1-123'],
  ['1-20230101.123456-1', '1-20230101.123456-1'],
  ['1.0.0.0.0.0.1', '1.0.0.0.0.0.1'],
  ['1.0.1', '1.0.1'],
  ['1.1-alpha', '1.1-alpha'],
  ['1.1-snapshot', '1.1-SNAPSHOT'],
  ['1.1', '1.1', '1.01', '1.001.0'],
  ['1.1-a', '1.1.a'],
  ['1.1-1', '1.1-1'],
  ['1.1.0.1', '1.1.0.1'],
  ['1.2', '1.2'],
  ['1.3', '1.3', '1.03', '1.\u0663'],
  ['1.10', '1.10'],
  ['2', '2.0'],
  ['2-a', '2.0.a'],
  ['2-abc', '2-abc', '2.0.abc', '2.0.0.abc'],
  ['2-1', '2-1'],
  ['2.0.1', '2.0.1'],
  ['2.0.1-klm', '2.0.1-klm'],
  ['2.0.1-lmn', '2.0.1-lmn'],
  ['2.0.1-xyz', '2.0.1-xyz'],
  ['2.0.1-123', '2.0.1-123'],
  ['2.0.2', '2.0.2'],
  ['2.0.123', '2.0.123'],
  ['2.1-a', '2.1-a'],
  ['2.1-b', '2.1b'],
  ['2.1-c', '2.1-c'],
  ['2.1-1', '2.1-1'],
  ['2.1.0.1', '2.1.0.1'],
  ['2.5-sp-1', '2.5.SP1'],
  ['2.5-sp-2', '2.5-sp2'],
  ['2.5-1', '2.5-1'],
  ['2.5.1', '2.5.1'],
  ['3-milestone-1', '3.0.0-M1', '3.0.0.M1'],
  ['3-milestone-5', '3.0.0-M5'],
  ['3-rc-1', '3.0.0-RC1', '3.0.0.RC1'],
  ['3-rc-2', '3.0.0-RC2', '3.0.0.RC2'],
  ['3', '3.0.0'],
  ['4.1-alpha-1', '4.1.0.Alpha1'],
  ['4.1-beta-1', '4.1.0.Beta1'],
  ['4.1-rc-1', '4.1.0.CR1'],
  ['4.1', '4.1.0.Final'],
  ['4.1-sp-1', '4.1.0.SP1'],
  ['4.1-redhat-1', '4.1.0.Final-redhat-00001'],
  ['5.3.20', '5.3.20.RELEASE'],
  ['6.1-rc-3', '6.1.0rc3'],
  ['6.1', '6.1.0'],
  ['6.1-h.5-beta', '6.1H.5-beta'],
  ['11-alpha-2', '11.a2'],
  ['11-alpha-11', '11.a11'],
  ['11-beta-2', '11.b2'],
  ['11-milestone-2', '11.m2'],
  ['11', '11'],
  ['11-a', '11.a'],
  ['11-b', '11b'],
  ['11-c', '11c'],
  ['11-m', '11m'],
  ['31.1', '31.1'],
  ['31.1-android', '31.1-android'],
  ['31.1-jre', '31.1-jre'],
  ['20190126.230843', '20190126.230843'],
  ['999999999', '999999999'],
  ['0.1', '0000000000.1'],
  ['1000000000', '1000000000'],
  ['2147483647', '2147483647'],
  ['2147483648', '2147483648'],
  ['0.1', '0000000000000000000.1'],
  ['9223372036854775807', '9223372036854775807'],
  ['9223372036854775808', '9223372036854775808'],
  ['99999999999999999999999999', '99999999999999999999999999'],
];

describe('Maven ComparableVersion port', () => {
  test('canonical forms match Maven', () => {
    for (const [canonical, ...versions] of MAVEN_LADDER) {
      for (const v of versions) assert.equal(canonicalMavenVersion(v), canonical, v);
    }
  });

  test('versions in a row compare equal', () => {
    for (const [, ...versions] of MAVEN_LADDER) {
      for (const a of versions) for (const b of versions) assert.equal(compareMavenVersions(a, b), 0, `${a} = ${b}`);
    }
  });

  test('rows are strictly ascending, every pair both ways', () => {
    const rows = MAVEN_LADDER.map(([, ...versions]) => versions);
    rows.forEach((lower, i) => {
      for (const higher of rows.slice(i + 1)) {
        for (const a of lower) {
          for (const b of higher) {
            assert.equal(compareMavenVersions(a, b), -1, `${a} < ${b}`);
            assert.equal(compareMavenVersions(b, a), 1, `${b} > ${a}`);
          }
        }
      }
    });
  });

  test('sorting a shuffled ladder restores it', () => {
    const firsts = MAVEN_LADDER.map((row) => row[1]);
    const shuffled = [...firsts.filter((_, i) => i % 2 === 1), ...firsts.filter((_, i) => i % 2 === 0).reverse()];
    assert.deepEqual(shuffled.sort(compareMavenVersions), firsts);
  });

  test('a sub-list orders after a qualifier at the same position, consistently both ways', () => {
    // mvncmp, used before, said "less" both ways for these pairs.
    const maven = versionScheme('Maven');
    for (const [lower, higher] of [['2.5.SP1', '2.5-1'], ['1.sp', '1-1'], ['1-sp', '1-1']]) assertOrder(maven, lower, higher);
  });

  test('keeps the cycle Maven has around `1-0.alpha`: below 1 (MNG-6964), yet a sub-list above `1-xyz`', () => {
    const cycle = ['1-0.alpha', '1-0.beta', '1', '1-xyz', '1-0.alpha'];
    for (let i = 1; i < cycle.length; i++) {
      assert.equal(compareMavenVersions(cycle[i - 1], cycle[i]), -1, `${cycle[i - 1]} < ${cycle[i]}`);
      assert.equal(compareMavenVersions(cycle[i], cycle[i - 1]), 1, `${cycle[i]} > ${cycle[i - 1]}`);
    }
    assert.equal(compareMavenVersions('1-sp', '1-0.alpha'), -1);
    assert.equal(compareMavenVersions('1-0.alpha', '1-1'), -1);
  });

  test('never throws', () => {
    for (const v of ['', '.', '-', '..--', '1..1', '-1', '1-', '\u{1F600}', '\ud800', '${project.version}', '[1.0,2.0)']) {
      assert.equal(compareMavenVersions(v, v), 0, v);
      assert.doesNotThrow(() => canonicalMavenVersion(v), v);
    }
  });
});

describe('Composer normalization', () => {
  test('follows composer/semver for the forms OSV uses', () => {
    const cases: [string, string | null][] = [
      ['1.4.2', '1.4.2.0'],
      ['v1.4', '1.4.0.0'],
      ['1.0.0-beta.2', '1.0.0.0-beta2'],
      ['1.0.0-b2', '1.0.0.0-beta2'],
      ['1.0-RC1', '1.0.0.0-RC1'],
      ['2.4.0-patch1', '2.4.0.0-p1'],
      ['1.0.0-beta2-dev', '1.0.0.0-beta2-dev'],
      ['1.0.0-dev', '1.0.0.0-dev'],
      ['1.0.0-stable', '1.0.0.0'],
      ['1.0.0+build.1', '1.0.0.0'],
      ['2023-01-01', '2023.01.01'],
      ['dev-main', null],
      ['1.0.x-dev', null],
      ['1.0.0-foo', null],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeComposerVersion(input), expected, input);
  });
});

// File syntaxes for the secrets benchmark: each renders a credential the way people write it in that kind
// of file (a Maven settings.xml, a web.config, a Dockerfile, a Kubernetes Secret, a notebook…) and gives a
// small realistic host file to put it in, since the clean corpus holds few or none of most of them.
import type { SecretRule } from '../src/scanning/secrets/rules.ts';

/** A sample split into the name it is assigned to (when it carries one) and the value that holds the secret. */
export interface Shape {
  kind: 'bare' | 'assignment' | 'multiline';
  name: string;
  value: string;
}

export function ruleName(rule: SecretRule): string {
  return rule.id.replace(/-/g, '_').toUpperCase();
}

export function shapeOf(rule: SecretRule, sample: string): Shape {
  const name = ruleName(rule);
  if (sample.includes('\n')) return { kind: 'multiline', name, value: sample };
  // A JSON member (`"private_key_id": "…",`) travels as a one-member object, the way such files get pasted.
  if (/^"[^"]+"\s*:/.test(sample)) return { kind: 'bare', name, value: `{${sample.replace(/,\s*$/, '')}}` };
  // `NAME=value`, `name = "value"`: the sample's own name goes with it into every context.
  const assignment = /^([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\s*[:=]\s*(["']?)(.*?)\2$/.exec(sample);
  if (assignment) return { kind: 'assignment', name: assignment[1], value: assignment[3] };
  return { kind: 'bare', name, value: sample };
}

export const camel = (name: string) => name.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export function quoted(value: string, preferred: '"' | "'"): string {
  if (!value.includes(preferred)) return `${preferred}${value}${preferred}`;
  const other = preferred === '"' ? "'" : '"';
  if (!value.includes(other)) return `${other}${value}${other}`;
  return `${preferred}${value.replaceAll(preferred, `\\${preferred}`)}${preferred}`;
}

// ---------------------------------------------------------------------------------------------------------
// spelling names and values

const pascal = (name: string) => camel(name).replace(/^./, (c) => c.toUpperCase());
const lower = (name: string) => name.toLowerCase();
const dotted = (name: string) => name.toLowerCase().replace(/_/g, '.');
const kebab = (name: string) => name.toLowerCase().replace(/_/g, '-');
/** A C-family double-quoted string literal: backslashes, quotes and line breaks escaped. */
const dq = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
/** A single-quoted literal (PHP, Perl, Ruby, Dart, SQL doubles the quote). */
const sq = (v: string, sql = false) => `'${sql ? v.replace(/'/g, "''") : v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const xmlText = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const xmlAttr = (v: string) => xmlText(v).replace(/"/g, '&quot;');
const yamlScalar = (v: string) => (/^[{[&*!|>'"%@`]|: | #|^-/.test(v) ? JSON.stringify(v) : v);
const lines = (v: string) => v.split('\n');
const indent = (v: string, by: string) => lines(v).map((l) => (l ? by + l : l));

export type Pick = <T>(...options: T[]) => T;

export interface Syntax {
  id: string;
  /** The host file's path for its n-th copy. */
  file: (n: number) => string;
  head: string[];
  tail: string[];
  /** Clean lines of the syntax written between planted ones. */
  filler: string[];
  /** Which samples the syntax holds; by default every one-line sample. */
  accepts?: (shape: Shape) => boolean;
  render: (shape: Shape, pick: Pick) => string[];
}

const oneLine = (s: Shape) => s.kind !== 'multiline';
const any = () => true;
/** A token that says what it is by itself: the credential files (.netrc, .npmrc) hold those, with no name. */
const token = (s: Shape) => s.kind === 'bare' && !/[\s{}"<>]/.test(s.value);

export const SYNTAXES: Syntax[] = [
  {
    id: 'xml-element',
    file: (n) => `app-${n}/src/main/resources/config.xml`,
    head: ['<?xml version="1.0" encoding="UTF-8"?>', '<configuration>', '  <settings>'],
    tail: ['  </settings>', '</configuration>'],
    filler: ['    <timeout>30</timeout>', '    <region>eu-west-1</region>', '    <retries>3</retries>'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`    <${camel(name)}>`, ...lines(xmlText(value)), `    </${camel(name)}>`]
        : [pick(`    <${camel(name)}>${xmlText(value)}</${camel(name)}>`, `    <${lower(name)}>${xmlText(value)}</${lower(name)}>`)],
  },
  {
    id: 'xml-attribute',
    file: (n) => `service-${n}/config/services.xml`,
    head: ['<?xml version="1.0" encoding="utf-8"?>', '<services>'],
    tail: ['</services>'],
    filler: ['  <service name="billing" url="https://billing.internal/api" timeout="30" />'],
    render: ({ name, value }, pick) => [
      pick(
        `  <service name="${kebab(name)}" ${camel(name)}="${xmlAttr(value)}" enabled="true" />`,
        `  <credential id="${kebab(name)}" ${camel(name)}="${xmlAttr(value)}"/>`,
      ),
    ],
  },
  {
    id: 'maven-settings',
    file: (n) => `build-${n}/settings.xml`,
    head: ['<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">', '  <servers>'],
    tail: ['  </servers>', '</settings>'],
    filler: ['    <server>', '      <id>central</id>', '    </server>'],
    render: ({ name, value, kind }) =>
      kind === 'bare'
        ? ['    <server>', `      <id>${kebab(name)}</id>`, '      <username>deploy</username>', `      <password>${xmlText(value)}</password>`, '    </server>']
        : ['    <server>', `      <id>${kebab(name)}</id>`, '      <configuration>', `        <${camel(name)}>${xmlText(value)}</${camel(name)}>`, '      </configuration>', '    </server>'],
  },
  {
    id: 'web-config',
    file: (n) => `Web-${n}/Web.config`,
    head: ['<?xml version="1.0" encoding="utf-8"?>', '<configuration>', '  <appSettings>'],
    tail: ['  </appSettings>', '</configuration>'],
    filler: ['    <add key="webpages:Version" value="3.0.0.0" />', '    <add key="ClientValidationEnabled" value="true" />'],
    render: ({ name, value }, pick) => [pick(`    <add key="${pascal(name)}" value="${xmlAttr(value)}" />`, `    <add key="${name}" value="${xmlAttr(value)}"/>`)],
  },
  {
    id: 'app-config-connection',
    file: (n) => `Desktop-${n}/App.config`,
    head: ['<?xml version="1.0" encoding="utf-8"?>', '<configuration>', '  <connectionStrings>'],
    tail: ['  </connectionStrings>', '</configuration>'],
    filler: ['    <add name="Local" connectionString="Server=(localdb)\\MSSQLLocalDB;Integrated Security=true" providerName="System.Data.SqlClient" />'],
    accepts: (s) => s.kind !== 'multiline' && /:\/\/|=[^;]*;/.test(s.value),
    render: ({ name, value }) => [`    <add name="${pascal(name)}" connectionString="${xmlAttr(value)}" providerName="System.Data.SqlClient" />`],
  },
  {
    id: 'java-properties',
    file: (n) => `svc-${n}/src/main/resources/application.properties`,
    head: ['# application settings', 'server.port=8080', 'spring.application.name=orders'],
    tail: ['logging.level.root=INFO'],
    filler: ['spring.jpa.hibernate.ddl-auto=validate', 'management.endpoints.web.exposure.include=health'],
    render: ({ name, value, kind }, pick) =>
      kind === 'bare'
        ? [pick(`app.${dotted(name)}=${value}`, `${dotted(name)} = ${value}`)]
        : [pick(`${name}=${value}`, `${dotted(name)}=${value}`, `app.${camel(name)}=${value}`)],
  },
  {
    id: 'ini',
    file: (n) => `tool-${n}/${['settings.ini', 'setup.cfg', 'config.cfg'][n % 3]}`,
    head: ['[general]', 'debug = false', '', '[service]'],
    tail: ['', '[logging]', 'level = info'],
    filler: ['host = api.internal', 'port = 8443'],
    render: ({ name, value }, pick) => [pick(`${lower(name)} = ${value}`, `${lower(name)}=${value}`, `${name} = ${value}`)],
  },
  {
    id: 'toml',
    file: (n) => `crate-${n}/${['config.toml', 'settings.toml'][n % 2]}`,
    head: ['[server]', 'host = "0.0.0.0"', 'port = 8080', '', '[credentials]'],
    tail: ['', '[log]', 'level = "info"'],
    filler: ['timeout = 30', 'region = "us-east-1"'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`${lower(name)} = """`, ...lines(value), '"""']
        : [pick(`${lower(name)} = ${dq(value)}`, `${lower(name)} = ${quoted(value, "'")}`)],
  },
  {
    id: 'terraform-variable',
    file: (n) => `infra-${n}/variables.tf`,
    head: ['variable "region" {', '  type    = string', '  default = "eu-west-1"', '}', ''],
    tail: [],
    filler: ['', 'variable "instance_count" {', '  type    = number', '  default = 2', '}', ''],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`variable "${lower(name)}" {`, '  type      = string', '  sensitive = true', '  default   = <<EOT', ...lines(value), 'EOT', '}']
        : terraformVariable(name, value, pick),
  },
  {
    id: 'terraform-resource',
    file: (n) => `infra-${n}/main.tf`,
    head: ['terraform {', '  required_version = ">= 1.5"', '}', ''],
    tail: [],
    filler: ['', 'resource "aws_s3_bucket" "logs" {', '  bucket = "acme-logs"', '}', ''],
    render: ({ name, value }, pick) =>
      pick(
        ['provider "acme" {', `  ${lower(name)} = ${dq(value)}`, '  region = "eu-west-1"', '}'],
        ['resource "acme_integration" "ci" {', '  name  = "ci"', `  ${lower(name)} = ${dq(value)}`, '}'],
        ['locals {', `  ${lower(name)} = ${dq(value)}`, '}'],
      ),
  },
  {
    id: 'tfvars',
    file: (n) => `infra-${n}/${['terraform.tfvars', 'prod.auto.tfvars'][n % 2]}`,
    head: ['region         = "eu-west-1"', 'instance_count = 3'],
    tail: [],
    filler: ['environment = "production"'],
    accepts: any,
    render: ({ name, value, kind }) => (kind === 'multiline' ? [`${lower(name)} = <<EOF`, ...lines(value), 'EOF'] : [`${lower(name)} = ${dq(value)}`]),
  },
  {
    id: 'dockerfile',
    file: (n) => `image-${n}/Dockerfile`,
    head: ['FROM node:20-alpine', 'WORKDIR /app', 'COPY package*.json ./'],
    tail: ['RUN npm ci --omit=dev', 'COPY . .', 'CMD ["node", "server.js"]'],
    filler: ['ENV NODE_ENV=production', 'EXPOSE 8080'],
    render: ({ name, value }, pick) =>
      [pick(`ENV ${name}=${/\s/.test(value) ? JSON.stringify(value) : value}`, `ENV ${name} ${value}`, `ARG ${name}=${/\s/.test(value) ? JSON.stringify(value) : value}`, `ENV ${name}="${value.replace(/"/g, '\\"')}"`)],
  },
  {
    id: 'compose-list',
    file: (n) => `stack-${n}/docker-compose.yml`,
    head: ['services:', '  api:', '    image: acme/api:1.4', '    ports:', '      - "8080:8080"', '    environment:'],
    tail: ['    depends_on:', '      - db'],
    filler: ['      - NODE_ENV=production', '      - LOG_LEVEL=info'],
    render: ({ name, value }, pick) => [pick(`      - ${name}=${value}`, `      - "${name}=${value.replace(/"/g, '\\"')}"`)],
  },
  {
    id: 'compose-map',
    file: (n) => `stack-${n}/compose.yaml`,
    head: ['services:', '  worker:', '    image: acme/worker:2.0', '    environment:'],
    tail: ['    restart: unless-stopped'],
    filler: ['      NODE_ENV: production', '      QUEUE: default'],
    render: ({ name, value }, pick) => [pick(`      ${name}: ${yamlScalar(value)}`, `      ${name}: ${JSON.stringify(value)}`, `      ${name}: '${value.replace(/'/g, "''")}'`)],
  },
  {
    id: 'k8s-secret-data',
    file: (n) => `deploy-${n}/k8s/secret.yaml`,
    head: ['apiVersion: v1', 'kind: Secret', 'metadata:', '  name: app-credentials', '  namespace: prod', 'type: Opaque', 'data:'],
    tail: [],
    filler: ['  DB_HOST: ZGIuaW50ZXJuYWw=', '  DB_PORT: NTQzMg=='],
    accepts: any,
    render: ({ name, value, kind }, pick) => [`  ${kind === 'multiline' ? pick('tls.key', 'ssh-privatekey', 'id_rsa') : pick(name, lower(name), kebab(name))}: ${Buffer.from(kind === 'multiline' ? value + '\n' : value).toString('base64')}`],
  },
  {
    id: 'k8s-secret-stringdata',
    file: (n) => `deploy-${n}/k8s/secret-string.yaml`,
    head: ['apiVersion: v1', 'kind: Secret', 'metadata:', '  name: app-env', 'type: Opaque', 'stringData:'],
    tail: [],
    filler: ['  LOG_LEVEL: info'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline' ? [`  ${pick('tls.key', 'id_rsa')}: |`, ...indent(value, '    ')] : [pick(`  ${name}: ${yamlScalar(value)}`, `  ${kebab(name)}: ${JSON.stringify(value)}`)],
  },
  {
    id: 'helm-values',
    file: (n) => `charts/app-${n}/values.yaml`,
    head: ['replicaCount: 2', 'image:', '  repository: acme/app', '  tag: "1.8.0"', 'config:'],
    tail: ['resources:', '  limits:', '    cpu: 500m'],
    filler: ['  logLevel: info', '  featureFlags: "beta,search"'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline' ? [`  ${camel(name)}: |`, ...indent(value, '    ')] : [pick(`  ${camel(name)}: ${JSON.stringify(value)}`, `  ${camel(name)}: ${yamlScalar(value)}`)],
  },
  {
    id: 'github-actions',
    file: (n) => `repo-${n}/.github/workflows/deploy.yml`,
    head: ['name: deploy', 'on:', '  push:', '    branches: [main]', 'jobs:', '  deploy:', '    runs-on: ubuntu-latest', '    env:'],
    tail: ['    steps:', '      - uses: actions/checkout@v4', '      - run: ./scripts/deploy.sh'],
    filler: ['      NODE_VERSION: "20"', '      AWS_REGION: eu-west-1'],
    render: ({ name, value }, pick) => [pick(`      ${name}: ${yamlScalar(value)}`, `      ${name}: ${JSON.stringify(value)}`)],
  },
  {
    id: 'gitlab-ci',
    file: (n) => `repo-${n}/.gitlab-ci.yml`,
    head: ['stages:', '  - test', '  - deploy', '', 'variables:'],
    tail: ['', 'deploy:', '  stage: deploy', '  script:', '    - ./deploy.sh'],
    filler: ['  DOCKER_DRIVER: overlay2'],
    render: ({ name, value }, pick) => [pick(`  ${name}: ${JSON.stringify(value)}`, `  ${name}: ${yamlScalar(value)}`)],
  },
  {
    id: 'ansible-vars',
    file: (n) => `ansible-${n}/group_vars/${['all', 'production'][n % 2]}.yml`,
    head: ['---', 'app_user: deploy', 'app_port: 8080'],
    tail: ['app_log_dir: /var/log/app'],
    filler: ['ntp_server: pool.ntp.org'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline' ? [`${lower(name)}: |`, ...indent(value, '  ')] : [pick(`${lower(name)}: ${JSON.stringify(value)}`, `${lower(name)}: ${yamlScalar(value)}`)],
  },
  {
    id: 'spring-yaml',
    file: (n) => `svc-${n}/src/main/resources/application.yml`,
    head: ['server:', '  port: 8080', 'app:', '  integrations:'],
    tail: ['logging:', '  level:', '    root: INFO'],
    filler: ['    timeout: 30s'],
    render: ({ name, value }, pick) => [pick(`    ${kebab(name)}: ${yamlScalar(value)}`, `    ${camel(name)}: ${JSON.stringify(value)}`)],
  },
  {
    id: 'php',
    file: (n) => `site-${n}/config/${['config.php', 'settings.php', 'wp-config.php'][n % 3]}`,
    head: ['<?php', '', "define('WP_DEBUG', false);"],
    tail: ['', "require_once __DIR__ . '/bootstrap.php';"],
    filler: ["$table_prefix = 'wp_';"],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`$${camel(name)} = '${lines(value)[0]}`, ...lines(value).slice(1), "';"]
        : [pick(`define('${name}', ${sq(value)});`, `$${camel(name)} = ${sq(value)};`, `$${lower(name)} = ${dq(value)};`)],
  },
  {
    id: 'php-array',
    file: (n) => `app-${n}/config/services.php`,
    head: ['<?php', '', 'return ['],
    tail: ['];'],
    filler: ["    'region' => 'us-east-1',", "    'timeout' => 30,"],
    render: ({ name, value }, pick) => [pick(`    '${lower(name)}' => ${sq(value)},`, `    "${lower(name)}" => ${dq(value)},`, `    '${lower(name)}' => env('${name}', ${sq(value)}),`)],
  },
  {
    id: 'csharp',
    file: (n) => `Acme.Service${n}/Settings.cs`,
    head: ['namespace Acme.Service;', '', 'public static class Settings', '{'],
    tail: ['}'],
    filler: ['    public const int Retries = 3;'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`    private const string ${pascal(name)} = @"${lines(value)[0]}`, ...lines(value).slice(1), '";']
        : [pick(`    private const string ${pascal(name)} = ${dq(value)};`, `    public static readonly string ${pascal(name)} = ${dq(value)};`, `    var ${camel(name)} = Environment.GetEnvironmentVariable("${name}") ?? ${dq(value)};`)],
  },
  {
    id: 'appsettings-json',
    file: (n) => `Acme.Api${n}/appsettings.json`,
    head: ['{', '  "Logging": {', '    "LogLevel": { "Default": "Information" }', '  },', '  "Integrations": {'],
    tail: ['    "TimeoutSeconds": 30', '  },', '  "AllowedHosts": "*"', '}'],
    filler: ['    "Region": "westeurope",'],
    accepts: any,
    render: ({ name, value }) => [`    "${pascal(name)}": ${JSON.stringify(value)},`],
  },
  {
    id: 'kotlin',
    file: (n) => `android-${n}/app/src/main/java/com/acme/Config.kt`,
    head: ['package com.acme', '', 'object Config {'],
    tail: ['}'],
    filler: ['    const val TIMEOUT_MS = 30_000'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`    val ${camel(name)} = """`, ...lines(value), '""".trimIndent()']
        : [pick(`    const val ${name} = ${dq(value)}`, `    val ${camel(name)} = ${dq(value)}`, `    val ${camel(name)} = System.getenv("${name}") ?: ${dq(value)}`)],
  },
  {
    id: 'gradle',
    file: (n) => `android-${n}/app/build.gradle.kts`,
    head: ['android {', '    namespace = "com.acme.app"', '    defaultConfig {'],
    tail: ['    }', '}'],
    filler: ['        minSdk = 24'],
    render: ({ name, value }, pick) => [
      pick(`        buildConfigField("String", "${name}", "\\"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\\\\\"')}\\"")`, `        manifestPlaceholders["${camel(name)}"] = ${dq(value)}`),
    ],
  },
  {
    id: 'gradle-properties',
    file: (n) => `lib-${n}/gradle.properties`,
    head: ['org.gradle.jvmargs=-Xmx2g', 'android.useAndroidX=true'],
    tail: ['kotlin.code.style=official'],
    filler: ['org.gradle.parallel=true'],
    render: ({ name, value }, pick) => [pick(`${camel(name)}=${value}`, `systemProp.${camel(name)}=${value}`)],
  },
  {
    id: 'swift',
    file: (n) => `ios-${n}/Sources/App/Secrets.swift`,
    head: ['import Foundation', '', 'enum Secrets {'],
    tail: ['}'],
    filler: ['    static let timeout: TimeInterval = 30'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline' ? [`    static let ${camel(name)} = """`, ...lines(value), '    """'] : [pick(`    static let ${camel(name)} = ${dq(value)}`, `    let ${camel(name)}: String = ${dq(value)}`)],
  },
  {
    id: 'objc',
    file: (n) => `ios-${n}/Classes/AppKeys.m`,
    head: ['#import "AppKeys.h"', ''],
    tail: [''],
    filler: ['NSString *const kAppGroup = @"group.com.acme.app";'],
    render: ({ name, value }, pick) => [pick(`NSString *const k${pascal(name)} = @${dq(value)};`, `static NSString * const ${pascal(name)} = @${dq(value)};`)],
  },
  {
    id: 'plist',
    file: (n) => `ios-${n}/App/Info.plist`,
    head: ['<?xml version="1.0" encoding="UTF-8"?>', '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">', '<plist version="1.0">', '<dict>'],
    tail: ['</dict>', '</plist>'],
    filler: ['\t<key>CFBundleName</key>', '\t<string>Acme</string>'],
    render: ({ name, value }) => [`\t<key>${pascal(name)}</key>`, `\t<string>${xmlText(value)}</string>`],
  },
  {
    id: 'rust',
    file: (n) => `crate-${n}/src/config.rs`,
    head: ['use std::env;', ''],
    tail: [''],
    filler: ['pub const TIMEOUT_SECS: u64 = 30;'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline'
        ? [`const ${name}: &str = r#"${lines(value)[0]}`, ...lines(value).slice(1), '"#;']
        : [pick(`pub const ${name}: &str = ${dq(value)};`, `    let ${lower(name)} = ${dq(value)};`, `    let ${lower(name)} = env::var("${name}").unwrap_or_else(|_| ${dq(value)}.to_string());`)],
  },
  {
    id: 'scala',
    file: (n) => `svc-${n}/src/main/scala/acme/Config.scala`,
    head: ['package acme', '', 'object Config {'],
    tail: ['}'],
    filler: ['  val timeout = 30'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline' ? [`  val ${camel(name)} = """${lines(value)[0]}`, ...lines(value).slice(1), '"""'] : [pick(`  val ${camel(name)} = ${dq(value)}`, `  final val ${pascal(name)}: String = ${dq(value)}`)],
  },
  {
    id: 'c-define',
    file: (n) => `firmware-${n}/src/${['config.h', 'secrets.h'][n % 2]}`,
    head: ['#ifndef CONFIG_H', '#define CONFIG_H', ''],
    tail: ['', '#endif'],
    filler: ['#define WIFI_RETRIES 5'],
    render: ({ name, value }, pick) => [pick(`#define ${name} ${dq(value)}`, `static const char *${lower(name)} = ${dq(value)};`, `const char ${lower(name)}[] = ${dq(value)};`)],
  },
  {
    id: 'cpp',
    file: (n) => `engine-${n}/src/client.cpp`,
    head: ['#include <string>', '', 'namespace acme {'],
    tail: ['}  // namespace acme'],
    filler: ['constexpr int kRetries = 3;'],
    render: ({ name, value }, pick) => [pick(`const std::string k${pascal(name)} = ${dq(value)};`, `constexpr const char* k${pascal(name)} = ${dq(value)};`)],
  },
  {
    id: 'powershell',
    file: (n) => `scripts-${n}/deploy.ps1`,
    head: ['param([string]$Environment = "prod")', 'Set-StrictMode -Version Latest'],
    tail: ['& ./build.ps1 -Environment $Environment'],
    filler: ['$ErrorActionPreference = "Stop"'],
    render: ({ name, value }, pick) => [pick(`$env:${name} = ${dq(value).replace(/\\"/g, '`"')}`, `$${camel(name)} = '${value.replace(/'/g, "''")}'`, `[Environment]::SetEnvironmentVariable("${name}", "${value}", "User")`)],
  },
  {
    id: 'batch',
    file: (n) => `scripts-${n}/${['build.bat', 'env.cmd'][n % 2]}`,
    head: ['@echo off', 'setlocal'],
    tail: ['call npm run build', 'endlocal'],
    filler: ['set NODE_ENV=production'],
    render: ({ name, value }, pick) => [pick(`set ${name}=${value}`, `set "${name}=${value}"`, `SET ${name}=${value}`)],
  },
  {
    id: 'makefile',
    file: (n) => `proj-${n}/Makefile`,
    head: ['.PHONY: build deploy', 'IMAGE ?= acme/app'],
    tail: ['', 'deploy:', '\t./scripts/deploy.sh $(IMAGE)'],
    filler: ['VERSION := 1.4.2'],
    render: ({ name, value }, pick) => [pick(`${name} := ${value}`, `${name} ?= ${value}`, `export ${name} = ${value}`, `${name}=${value}`)],
  },
  {
    id: 'systemd',
    file: (n) => `ops-${n}/app.service`,
    head: ['[Unit]', 'Description=Acme API', '', '[Service]', 'User=acme'],
    tail: ['ExecStart=/usr/bin/node /opt/acme/server.js', '', '[Install]', 'WantedBy=multi-user.target'],
    filler: ['Environment=NODE_ENV=production'],
    render: ({ name, value }, pick) => [pick(`Environment=${name}=${value}`, `Environment="${name}=${value}"`)],
  },
  {
    id: 'npmrc',
    file: (n) => `web-${n}/.npmrc`,
    head: ['registry=https://registry.npmjs.org/', 'save-exact=true'],
    tail: [],
    filler: ['engine-strict=true'],
    accepts: token,
    render: ({ value }, pick) => [pick(`//registry.npmjs.org/:_authToken=${value}`, `//npm.pkg.github.com/:_authToken=${value}`, `//gitlab.com/api/v4/packages/npm/:_authToken=${value}`)],
  },
  {
    id: 'netrc',
    file: (n) => `home-${n}/.netrc`,
    head: ['default login anonymous'],
    tail: [],
    filler: [],
    accepts: token,
    render: ({ value }, pick) => pick([`machine api.service.io login deploy password ${value}`], ['machine api.service.io', '  login deploy', `  password ${value}`]),
  },
  {
    id: 'pgpass',
    file: (n) => `home-${n}/.pgpass`,
    head: ['# hostname:port:database:username:password'],
    tail: [],
    filler: ['localhost:5432:*:postgres:*'],
    accepts: token,
    render: ({ value }) => [`db.internal:5432:app:app_user:${value}`],
  },
  {
    id: 'pypirc',
    file: (n) => `pkg-${n}/.pypirc`,
    head: ['[distutils]', 'index-servers =', '    pypi', '    internal', '', '[internal]', 'repository = https://pypi.internal/simple'],
    tail: [],
    filler: ['username = __token__'],
    accepts: token,
    render: ({ value }) => [`password = ${value}`],
  },
  {
    id: 'sql',
    file: (n) => `db-${n}/migrations/00${n % 10}_seed.sql`,
    head: ['BEGIN;', 'CREATE TABLE IF NOT EXISTS settings (key text primary key, value text);'],
    tail: ['COMMIT;'],
    filler: ["INSERT INTO settings (key, value) VALUES ('timeout', '30');"],
    render: ({ name, value }, pick) => [
      pick(
        `INSERT INTO settings (key, value) VALUES ('${lower(name)}', ${sq(value, true)});`,
        `UPDATE integrations SET ${lower(name)} = ${sq(value, true)} WHERE id = 1;`,
        `INSERT INTO integrations (name, ${lower(name)}) VALUES ('ci', ${sq(value, true)});`,
      ),
    ],
  },
  {
    id: 'csv',
    file: (n) => `data-${n}/credentials.csv`,
    head: ['service,key,value'],
    tail: [],
    filler: ['billing,region,eu-west-1'],
    render: ({ name, value }) => [`ci,${lower(name)},${/[",]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value}`],
  },
  {
    id: 'ipynb',
    file: (n) => `notebooks-${n}/analysis.ipynb`,
    head: ['{', ' "cells": [', '  {', '   "cell_type": "code",', '   "execution_count": 1,', '   "metadata": {},', '   "outputs": [],', '   "source": [', '    "import os\\n",'],
    tail: ['    "print(\'ready\')"', '   ]', '  }', ' ],', ' "metadata": {},', ' "nbformat": 4,', ' "nbformat_minor": 5', '}'],
    filler: ['    "import pandas as pd\\n",'],
    accepts: any,
    render: ({ name, value, kind }, pick) => {
      if (kind === 'multiline') return [`    ${JSON.stringify(`${name.toLowerCase()} = """${value}"""\n`)},`];
      return [pick(`    ${JSON.stringify(`${name} = ${quoted(value, '"')}\n`)},`, `    ${JSON.stringify(`os.environ["${name}"] = ${quoted(value, '"')}\n`)},`, `    ${JSON.stringify(`client = Client(${lower(name)}=${quoted(value, "'")})\n`)},`)];
    },
  },
  {
    id: 'markdown-prose',
    file: (n) => `docs-${n}/${['SETUP.md', 'notes.md', 'README.md'][n % 3]}`,
    head: ['# Setup', '', 'Install the dependencies with `npm ci`.', ''],
    tail: ['', 'Then run `npm start`.'],
    filler: ['Ask in #platform if the staging cluster is down.', ''],
    render: ({ name, value, kind }, pick) =>
      kind === 'bare'
        ? [pick(`The staging ${lower(name).replace(/_/g, ' ')} is \`${value}\` (rotate it after the demo).`, `Use ${value} as the ${lower(name).replace(/_/g, ' ')} for now.`, `- ${lower(name).replace(/_/g, ' ')}: ${value}`)]
        : [pick(`Set \`${name}=${value}\` before running the server.`, `| ${name} | \`${value}\` |`)],
  },
  {
    id: 'html-inline',
    file: (n) => `site-${n}/${['index.html', 'embed.html'][n % 2]}`,
    head: ['<!doctype html>', '<html>', '<head>', '  <meta charset="utf-8">'],
    tail: ['</head>', '<body><div id="app"></div></body>', '</html>'],
    filler: ['  <link rel="stylesheet" href="/app.css">'],
    render: ({ name, value }, pick) =>
      pick(
        ['  <script>', `    window.APP_CONFIG = { ${camel(name)}: ${dq(value)} };`, '  </script>'],
        [`  <meta name="${kebab(name)}" content="${xmlAttr(value)}">`],
        [`  <input type="hidden" name="${lower(name)}" value="${xmlAttr(value)}">`],
        [`  <script src="https://cdn.service.io/sdk.js" data-${kebab(name)}="${xmlAttr(value)}"></script>`],
      ),
  },
  {
    id: 'jenkinsfile',
    file: (n) => `ci-${n}/Jenkinsfile`,
    head: ['pipeline {', '  agent any', '  environment {'],
    tail: ['  }', '  stages {', "    stage('Build') { steps { sh 'make build' } }", '  }', '}'],
    filler: ["    REGION = 'eu-west-1'"],
    render: ({ name, value }, pick) => [pick(`    ${name} = ${sq(value)}`, `    ${name} = ${dq(value)}`)],
  },
  {
    id: 'groovy',
    file: (n) => `ci-${n}/vars/deploy.groovy`,
    head: ['def call(Map config = [:]) {'],
    tail: ['  sh "./deploy.sh"', '}'],
    filler: ["  def region = 'eu-west-1'"],
    render: ({ name, value }, pick) => [pick(`  def ${camel(name)} = ${sq(value)}`, `  String ${camel(name)} = ${dq(value)}`, `  withEnv(["${name}=${value}"]) {`)],
  },
  {
    id: 'elixir',
    file: (n) => `app-${n}/config/${['prod.exs', 'runtime.exs', 'config.exs'][n % 3]}`,
    head: ['import Config', ''],
    tail: ['', 'config :logger, level: :info'],
    filler: ['config :app, :pool_size, 10'],
    render: ({ name, value }, pick) =>
      pick([`config :app, ${lower(name)}: ${dq(value)}`], ['config :app, App.Client,', '  region: "eu-west-1",', `  ${lower(name)}: ${dq(value)}`], [`config :app, :${lower(name)}, ${dq(value)}`]),
  },
  {
    id: 'perl',
    file: (n) => `tools-${n}/lib/Config.pm`,
    head: ['package Config;', 'use strict;', 'use warnings;', ''],
    tail: ['', '1;'],
    filler: ['my $timeout = 30;'],
    render: ({ name, value }, pick) => [pick(`my $${lower(name)} = ${sq(value)};`, `$ENV{${name}} = ${sq(value)};`, `our %CONFIG = ( ${lower(name)} => ${sq(value)} );`)],
  },
  {
    id: 'lua',
    file: (n) => `game-${n}/config.lua`,
    head: ['local config = {}', ''],
    tail: ['', 'return config'],
    filler: ['config.timeout = 30'],
    accepts: any,
    render: ({ name, value, kind }, pick) =>
      kind === 'multiline' ? [`config.${lower(name)} = [[`, ...lines(value), ']]'] : [pick(`local ${lower(name)} = ${dq(value)}`, `config.${lower(name)} = ${dq(value)}`)],
  },
  {
    id: 'r',
    file: (n) => `analysis-${n}/${['setup.R', 'query.r'][n % 2]}`,
    head: ['library(httr)', ''],
    tail: ['', 'res <- GET("https://api.service.io/v1/data")'],
    filler: ['options(timeout = 60)'],
    render: ({ name, value }, pick) => [pick(`${lower(name)} <- ${dq(value)}`, `Sys.setenv(${name} = ${dq(value)})`)],
  },
  {
    id: 'dart',
    file: (n) => `flutter-${n}/lib/env.dart`,
    head: ['class Env {'],
    tail: ['}'],
    filler: ['  static const int timeout = 30;'],
    render: ({ name, value }, pick) => [pick(`  static const String ${camel(name)} = ${sq(value)};`, `  static const ${camel(name)} = ${dq(value)};`)],
  },
  {
    id: 'python-kwarg',
    file: (n) => `jobs-${n}/client.py`,
    head: ['import service_sdk', ''],
    tail: ['', 'client.sync()'],
    filler: ['TIMEOUT = 30'],
    render: ({ name, value }, pick) => [pick(`client = service_sdk.Client(${lower(name)}=${quoted(value, '"')}, timeout=30)`, `settings["${lower(name)}"] = ${quoted(value, "'")}`)],
  },
  {
    id: 'js-object',
    file: (n) => `web-${n}/src/api.js`,
    head: ["import { Client } from 'service-sdk';", ''],
    tail: ['', 'export default client;'],
    filler: ['const TIMEOUT = 30_000;'],
    render: ({ name, value }, pick) => [pick(`const client = new Client({ ${camel(name)}: ${quoted(value, "'")}, timeout: TIMEOUT });`, `headers: { 'X-${pascal(name)}': ${quoted(value, "'")} },`)],
  },
  {
    id: 'ruby',
    file: (n) => `rails-${n}/config/initializers/service.rb`,
    head: ['Service.configure do |config|'],
    tail: ['end'],
    filler: ['  config.timeout = 30'],
    render: ({ name, value }, pick) => [pick(`  config.${lower(name)} = ${quoted(value, "'")}`, `  ENV['${name}'] ||= ${quoted(value, "'")}`)],
  },
  {
    id: 'go-struct',
    file: (n) => `svc-${n}/internal/config/defaults.go`,
    head: ['package config', '', 'var defaults = Config{'],
    tail: ['}'],
    filler: ['\tTimeout: 30,'],
    render: ({ name, value }) => [`\t${pascal(name)}: ${value.includes('"') ? `\`${value}\`` : `"${value}"`},`],
  },
  {
    id: 'shell-cli',
    file: (n) => `scripts-${n}/release.sh`,
    head: ['#!/usr/bin/env bash', 'set -euo pipefail'],
    tail: ['echo done'],
    filler: ['cd "$(dirname "$0")/.."'],
    render: ({ name, value }, pick) => [
      pick(
        `docker run -e ${name}=${value} acme/app:latest`,
        `curl -fsS -H "X-${pascal(name)}: ${value.replace(/"/g, '\\"')}" https://api.service.io/v1/ping`,
        `./bin/tool --${kebab(name)} ${quoted(value, "'")} sync`,
        `./bin/tool --${kebab(name)}=${quoted(value, "'")} sync`,
      ),
    ],
  },
  {
    id: 'clojure-edn',
    file: (n) => `svc-${n}/resources/config.edn`,
    head: ['{:port 8080'],
    tail: [' :log-level :info}'],
    filler: [' :timeout 30'],
    render: ({ name, value }) => [` :${kebab(name)} ${dq(value)}`],
  },
  {
    id: 'dotenv',
    file: (n) => `app-${n}/${['.env', '.env.production', '.env.local'][n % 3]}`,
    head: ['NODE_ENV=production', 'PORT=8080'],
    tail: [],
    filler: ['LOG_LEVEL=info'],
    render: ({ name, value }, pick) => [pick(`${name}=${value}`, `${name}="${value.replace(/"/g, '\\"')}"`, `${name}='${value}'`, `export ${name}=${value}`)],
  },
];

function terraformVariable(name: string, value: string, pick: Pick): string[] {
  return pick(
    [`variable "${lower(name)}" {`, '  type      = string', `  default   = ${dq(value)}`, '  sensitive = true', '}'],
    [`variable "${lower(name)}" {`, '  description = "Credential for the provider"', `  default     = ${dq(value)}`, '}'],
  );
}

export const syntaxAccepts = (syntax: Syntax, shape: Shape) => (syntax.accepts ?? oneLine)(shape);

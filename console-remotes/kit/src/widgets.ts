/**
 * `@engram/console-kit/widgets`: the heavier Mantine inputs and layout pieces the remotes use
 * (selects, tag inputs, tabs…). A shared singleton of its own, provided by the shell but only
 * downloaded when a remote first imports it, so it stays out of the shell's initial JavaScript.
 * It uses the same Mantine modules as the kit, so the theme and color scheme apply.
 */
export { Collapse, MultiSelect, NumberInput, Progress, Select, Switch, Tabs, TagsInput, Textarea } from '@mantine/core';

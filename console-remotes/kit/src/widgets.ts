/**
 * `@engram/console-kit/widgets`: the heavier Mantine inputs and layout pieces the remotes (and the
 * shell's screens that load on first use) need: selects, tag inputs, tabs, checkboxes… A shared
 * singleton of its own, provided by the shell but only downloaded when something first imports it,
 * so it stays out of the shell's initial JavaScript.
 * It uses the same Mantine modules as the kit, so the theme and color scheme apply.
 */
export { Checkbox, Collapse, FileButton, MultiSelect, NumberInput, Progress, Select, Switch, Tabs, TagsInput, Textarea } from '@mantine/core';

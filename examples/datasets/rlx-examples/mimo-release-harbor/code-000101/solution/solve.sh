#!/usr/bin/env bash
echo ZX-ANSWER-4900

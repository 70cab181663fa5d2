/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_WIDEBAND_TEST_SCOPED_ENV_H
#define INCLUDED_WIDEBAND_TEST_SCOPED_ENV_H

#include <gnuradio/wideband/core/environment.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

// Sets an environment variable for the life of the object, then restores it.
// WIDEBAND_FAULT: the engines watch it from then on (environment::watch_fault()).
class scoped_env
{
public:
    scoped_env(const char* name, const std::optional<std::string>& value) : d_name(name)
    {
        if (const char* old = std::getenv(name))
            d_old = old;
        set(value);
        if (std::strcmp(name, "WIDEBAND_FAULT") == 0)
            gr::wideband::core::environment::watch_fault();
    }
    ~scoped_env() { set(d_old); }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    void set(const std::optional<std::string>& value)
    {
        if (value)
            setenv(d_name, value->c_str(), 1);
        else
            unsetenv(d_name);
    }

    const char* d_name;
    std::optional<std::string> d_old;
};

#endif /* INCLUDED_WIDEBAND_TEST_SCOPED_ENV_H */

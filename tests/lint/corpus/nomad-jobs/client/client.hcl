# Nomad client configuration for the agent fleet.
client {
  enabled = true

  host_volume "docker-sock" {
    path      = "/var/run/docker.sock"
    read_only = false
  }

  host_volume "scratch" {
    path = "/srv/scratch"
  }
}

plugin "docker" {
  config {
    volumes {
      enabled = true
    }
  }
}

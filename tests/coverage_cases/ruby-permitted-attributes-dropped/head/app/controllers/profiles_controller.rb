class ProfilesController < ApplicationController
  def update
    current_user.update(profile_attributes)
  end

  private

  def profile_attributes
    params[:profile].to_unsafe_h
  end
end
